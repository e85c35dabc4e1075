//! ed25519 key files. A private key file holds the 32-byte seed as 64 hex
//! digits (mode 0600); a public key is 64 hex digits, in a file or inline in
//! the config. Keys come from files or the environment, never from code.

use ed25519_dalek::{SigningKey, VerifyingKey};
use std::path::Path;

/// Makes a new key pair: `path` (private, mode 0600) and `path.pub`.
pub fn generate(path: &Path) -> anyhow::Result<VerifyingKey> {
    anyhow::ensure!(
        !path.exists(),
        "{} exists; not overwriting a key",
        path.display()
    );
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).map_err(|e| anyhow::anyhow!("random seed: {e}"))?;
    let key = SigningKey::from_bytes(&seed);
    write_private(path, &format!("{}\n", hex::encode(seed)))?;
    let public = key.verifying_key();
    let pub_path = public_path(path);
    std::fs::write(&pub_path, format!("{}\n", hex::encode(public.as_bytes())))
        .map_err(|e| anyhow::anyhow!("{}: {e}", pub_path.display()))?;
    Ok(public)
}

/// `KEY.pub` beside `KEY`.
pub fn public_path(path: &Path) -> std::path::PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".pub");
    p.into()
}

#[cfg(unix)]
fn write_private(path: &Path, text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    f.write_all(text.as_bytes())?;
    Ok(())
}

#[cfg(not(unix))]
fn write_private(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// Checks who else may touch a secret (a key or token file) before it is
/// read. A file others can write is refused: whoever can replace the hub's
/// key or a token owns what it guards. A file others can only read is used,
/// with a warning: container runtimes mount secrets world-readable (0444)
/// inside a container only its own process reaches, so refusing would break
/// them, but on a shared machine it is a leak the operator should hear of.
pub fn check_private_file(path: &Path, what: &str) -> anyhow::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)
            .map_err(|e| anyhow::anyhow!("{what} {}: {e}", path.display()))?
            .permissions()
            .mode();
        anyhow::ensure!(
            mode & 0o022 == 0,
            "{what} {}: others can write it (mode {:o}); refusing it (chmod 600)",
            path.display(),
            mode & 0o777
        );
        if mode & 0o044 != 0 {
            tracing::warn!(
                file = %path.display(),
                mode = format!("{:o}", mode & 0o777),
                "{what} is readable by others (chmod 600)"
            );
        }
    }
    #[cfg(not(unix))]
    let _ = (path, what);
    Ok(())
}

/// Reads a private key file.
///
/// A public key file has the same form (64 hex digits), so a `.pub` given
/// by mistake would be taken as a seed and sign sets no agent can verify:
/// a file named `.pub`, or whose digits are the public key beside it, is
/// refused; a key whose `KEY.pub` names another public key is refused too.
pub fn read_signing(path: &Path) -> anyhow::Result<SigningKey> {
    if path.to_string_lossy().ends_with(".pub") {
        let private = path.with_extension("");
        let hint = if private.exists() {
            format!(" ({})", private.display())
        } else {
            String::new()
        };
        anyhow::bail!(
            "key file {}: this is a public key (a `.pub` file); give the private key{hint}",
            path.display()
        );
    }
    check_private_file(path, "key file")?;
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("key file {}: {e}", path.display()))?;
    let seed =
        parse32(text.trim()).map_err(|e| anyhow::anyhow!("key file {}: {e}", path.display()))?;
    let key = SigningKey::from_bytes(&seed);
    let beside = public_path(path);
    if let Ok(public) = read_public(&beside) {
        anyhow::ensure!(
            public.as_bytes() != &seed,
            "key file {}: holds the same digits as {}, a public key; give the private key",
            path.display(),
            beside.display()
        );
        anyhow::ensure!(
            public == key.verifying_key(),
            "key file {}: its public key is not the one in {} (agents holding that one would refuse every set)",
            path.display(),
            beside.display()
        );
    }
    Ok(key)
}

/// A short fingerprint of a public key for logs: the first 16 hex digits of
/// its SHA-1 (enough to tell keys apart at a glance; agents check the whole key).
pub fn fingerprint(public: &VerifyingKey) -> String {
    use sha1::Digest;
    hex::encode(&sha1::Sha1::digest(public.as_bytes())[..8])
}

/// Parses a public key given as 64 hex digits.
pub fn parse_public(hex_text: &str) -> anyhow::Result<VerifyingKey> {
    let bytes = parse32(hex_text.trim())?;
    VerifyingKey::from_bytes(&bytes).map_err(|e| anyhow::anyhow!("not an ed25519 public key: {e}"))
}

/// Reads a public key file.
pub fn read_public(path: &Path) -> anyhow::Result<VerifyingKey> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("public key file {}: {e}", path.display()))?;
    parse_public(&text).map_err(|e| anyhow::anyhow!("public key file {}: {e}", path.display()))
}

fn parse32(text: &str) -> anyhow::Result<[u8; 32]> {
    let mut out = [0u8; 32];
    hex::decode_to_slice(text, &mut out)
        .map_err(|e| anyhow::anyhow!("expected 64 hex digits: {e}"))?;
    Ok(out)
}

/// Reads a secret (bearer token) from a file, trimmed; an empty one is an error.
pub fn read_secret(path: &Path) -> anyhow::Result<String> {
    check_private_file(path, "token file")?;
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("token file {}: {e}", path.display()))?;
    let token = text.trim().to_string();
    anyhow::ensure!(!token.is_empty(), "token file {} is empty", path.display());
    Ok(token)
}

/// The lines of a secrets file that say something, numbered from 1 for
/// errors (which name the line, never its value): blank lines and `#`
/// comments left out, the rest trimmed. Agent tokens, agent keys and Kafka
/// properties are all written this way.
pub fn meaningful_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(n, line)| (n + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
}

/// A file of `AGENT_ID VALUE` lines (`#` comments, blank lines skipped):
/// the hub's per-agent tokens, a discoverer's agents' public keys. Errors
/// name `flag` and the line, never a value: the values may be secrets.
pub fn read_per_agent(
    path: &Path,
    flag: &str,
    value: &str,
) -> anyhow::Result<std::collections::BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("{flag} {}: {e}", path.display()))?;
    let mut out = std::collections::BTreeMap::new();
    for (n, line) in meaningful_lines(&text) {
        let mut parts = line.split_whitespace();
        let (Some(agent), Some(v), None) = (parts.next(), parts.next(), parts.next()) else {
            anyhow::bail!("{flag} line {n}: expected `AGENT_ID {value}`");
        };
        anyhow::ensure!(
            super::protocol::valid_agent_id(agent),
            "{flag} line {n}: `{agent}` is not an agent id (1-64 of A-Z a-z 0-9 . _ -)"
        );
        anyhow::ensure!(
            out.insert(agent.to_string(), v.to_string()).is_none(),
            "{flag} line {n}: agent `{agent}` given twice"
        );
    }
    anyhow::ensure!(!out.is_empty(), "{flag} {}: no agent in it", path.display());
    Ok(out)
}

/// `AGENT_ID PUBLIC_KEY` lines: which key signs each agent's counts.
pub fn read_agent_keys(
    path: &Path,
    flag: &str,
) -> anyhow::Result<std::collections::BTreeMap<String, VerifyingKey>> {
    read_per_agent(path, flag, "PUBLIC_KEY")?
        .into_iter()
        .map(|(agent, hex)| {
            let key =
                parse_public(&hex).map_err(|e| anyhow::anyhow!("{flag}: agent `{agent}`: {e}"))?;
            Ok((agent, key))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generate_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hub.key");
        let public = generate(&path).unwrap();
        assert_eq!(read_signing(&path).unwrap().verifying_key(), public);
        assert_eq!(read_public(&public_path(&path)).unwrap(), public);
        assert!(generate(&path).is_err(), "never overwrites");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let token = dir.path().join("token");
            std::fs::write(&token, "s3cret\n").unwrap();
            std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o644)).unwrap();
            assert_eq!(
                read_secret(&token).unwrap(),
                "s3cret",
                "readable by others: a warning"
            );
            std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o662)).unwrap();
            let e = read_secret(&token).unwrap_err().to_string();
            assert!(
                e.contains("others can write it") && !e.contains("s3cret"),
                "{e}"
            );
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o620)).unwrap();
            assert!(read_signing(&path).is_err(), "a key the group can write");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert!(parse_public("abc").is_err());
    }
}
