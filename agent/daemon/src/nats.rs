//! How every NATS client here connects and authenticates.
//!
//! NATS sources and sinks rely on the server's own authentication, given
//! by the environment so that no secret sits in a configuration file:
//! `CRAWLSIEVE_NATS_CREDENTIALS` names a `.creds` file (a user JWT and its
//! NKey seed: decentralised auth), or `CRAWLSIEVE_NATS_USER` and
//! `CRAWLSIEVE_NATS_PASSWORD` give a user and password. A user and password
//! written into the URL also work, but they are taken out of it before the
//! client sees it ([`connect`]): async-nats logs the URL it dials, password
//! and all, at debug level.

use async_nats::ConnectOptions;

/// Options and the URL to dial: the operator's credentials, from the
/// environment or from the URL's user information (taken out of the URL).
pub async fn connect(url: &str) -> anyhow::Result<(ConnectOptions, String)> {
    let clean = redact(url);
    if clean != url {
        let rest = url.split_once("://").map_or(url, |(_, r)| r);
        let userinfo = rest.rsplit_once('@').map_or("", |(u, _)| u);
        let (user, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
        return Ok((
            ConnectOptions::with_user_and_password(user.to_string(), password.to_string()),
            clean,
        ));
    }
    Ok((options().await?, clean))
}

/// Connection options with the operator's credentials.
async fn options() -> anyhow::Result<ConnectOptions> {
    if let Some(path) = std::env::var_os("CRAWLSIEVE_NATS_CREDENTIALS") {
        let path = std::path::PathBuf::from(path);
        crawlsieve_core::labels::keys::check_private_file(&path, "NATS credentials file")
            .map_err(|e| anyhow::anyhow!("CRAWLSIEVE_NATS_CREDENTIALS: {e}"))?;
        return ConnectOptions::with_credentials_file(&path)
            .await
            .map_err(|e| anyhow::anyhow!("CRAWLSIEVE_NATS_CREDENTIALS {}: {e}", path.display()));
    }
    match (
        std::env::var("CRAWLSIEVE_NATS_USER"),
        std::env::var("CRAWLSIEVE_NATS_PASSWORD"),
    ) {
        (Ok(user), Ok(password)) => Ok(ConnectOptions::with_user_and_password(user, password)),
        (Ok(_), Err(_)) | (Err(_), Ok(_)) => {
            anyhow::bail!("CRAWLSIEVE_NATS_USER and CRAWLSIEVE_NATS_PASSWORD: set both or neither")
        }
        _ => Ok(ConnectOptions::new()),
    }
}

/// `url` without its user information (`nats://user:pw@host` → `nats://host`).
pub fn redact(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => match rest.rsplit_once('@') {
            Some((_, host)) => format!("{scheme}://{host}"),
            None => url.to_string(),
        },
        None => match url.rsplit_once('@') {
            Some((_, host)) => host.to_string(),
            None => url.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn redact_drops_user_information() {
        assert_eq!(super::redact("nats://u:secret@h:4222"), "nats://h:4222");
        assert_eq!(super::redact("nats://h:4222"), "nats://h:4222");
        assert_eq!(super::redact("u:secret@h"), "h");
    }
}
