//! Which key a configuration mistake is in, and which layer it came from.
//!
//! The `config` crate names only the section of a mistake (``for key
//! `agent` ``), which leaves an operator hunting through a sink list or the
//! environment. Here the merged layers are read again through
//! `serde_path_to_error`, which tracks the path down to the field
//! (`agent.sinks[0].paht`), and the path is looked up in each layer, most
//! specific first, so the message says where to fix it: `--set`, the
//! environment (by the variable's name), the config file, or the defaults
//! of a `rules_dir`.

use config::Config;
use serde::de::DeserializeOwned;
use std::path::Path;

/// Where the layers came from, to say which one holds a key.
pub struct Layers<'a> {
    pub config_file: Option<&'a Path>,
    pub overrides: &'a [(&'a str, config::Value)],
}

/// Reads `section` (the whole configuration when empty) of `merged` as `T`;
/// a mistake names its whole key and the layer it came from.
pub fn read<T: DeserializeOwned>(
    merged: &Config,
    section: &str,
    layers: &Layers<'_>,
) -> Result<T, KeyError> {
    let first = if section.is_empty() {
        merged.clone().try_deserialize::<T>()
    } else {
        merged.get::<T>(section)
    };
    first.map_err(|e| KeyError(explain::<T>(merged, section, layers, e.to_string())))
}

/// A configuration mistake, explained: its whole key, the layer it came from and
/// what would work (`agent.sinks[0].path: missing field`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct KeyError(pub String);

/// The message for a mistake the `config` crate reported as `message`.
fn explain<T: DeserializeOwned>(
    merged: &Config,
    section: &str,
    layers: &Layers<'_>,
    message: String,
) -> String {
    let reason = message
        .rsplit_once(" for key `")
        .map_or(message.as_str(), |(reason, _)| reason)
        .to_string();
    let Ok(value) = merged.clone().try_deserialize::<serde_json::Value>() else {
        return message;
    };
    let value = match section {
        "" => &value,
        s => match value.get(s) {
            Some(v) => v,
            None => return message,
        },
    };
    // The path comes from a second reading into the same type, with the path
    // tracked; it is trusted only where that reading fails for the same
    // reason (the `config` crate parses strings from the environment as
    // numbers, which a plain JSON reading would not).
    let path = match serde_path_to_error::deserialize::<_, T>(value) {
        Ok(_) => return message,
        Err(e) if same_mistake(&e.inner().to_string(), &reason) => e.path().to_string(),
        Err(_) => return message,
    };
    let mut key = join(section, &path);
    if let Some(field) = unknown_field(&reason) {
        if !key.ends_with(&format!(".{field}")) {
            key = join(&key, field);
        }
    }
    format!("key `{key}`: {reason} ({})", origin(&key, layers))
}

/// Two readings' messages for one mistake: the same up to the first comma
/// (``invalid type: string "big"``, then each says what it expected in its
/// own words).
fn same_mistake(a: &str, b: &str) -> bool {
    let head = |s: &str| s.split(',').next().unwrap_or("").to_string();
    head(a) == head(b)
}

fn join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty() || b == ".") {
        (true, _) => b.to_string(),
        (_, true) => a.to_string(),
        _ if b.starts_with('[') => format!("{a}{b}"),
        _ => format!("{a}.{b}"),
    }
}

/// The field an "unknown field `x`" message names.
fn unknown_field(reason: &str) -> Option<&str> {
    let rest = reason.strip_prefix("unknown field `")?;
    rest.split_once('`').map(|(f, _)| f)
}

/// Which layer holds `key` (`agent.sinks[0].path`): the most specific that
/// has it.
fn origin(key: &str, layers: &Layers<'_>) -> String {
    let plain = strip_indices(key);
    if layers
        .overrides
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case(&plain) || plain.starts_with(&format!("{k}.")))
    {
        return "from --set".into();
    }
    let var = format!(
        "CRAWLSIEVE_{}",
        plain.replace('.', "__").to_ascii_uppercase()
    );
    if std::env::var_os(&var).is_some() {
        return format!("from the environment: {var}");
    }
    if let Some(path) = layers.config_file {
        if file_has(path, key) {
            return format!("from {}", path.display());
        }
    }
    "from the shipped defaults or rules_dir/defaults.toml".into()
}

/// `agent.sinks[0].path` → `agent.sinks.path`.
fn strip_indices(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut depth = 0;
    for c in key.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// Whether the TOML file at `path` holds `key` (with `[i]` indices).
fn file_has(path: &Path, key: &str) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    let Ok(mut value) = text.parse::<toml::Table>().map(toml::Value::Table) else {
        return false;
    };
    for part in key.split('.') {
        let (name, indices) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        let lowered = name.to_ascii_lowercase();
        let next = match &value {
            toml::Value::Table(t) => t
                .iter()
                .find(|(k, _)| k.to_ascii_lowercase() == lowered)
                .map(|(_, v)| v.clone()),
            _ => None,
        };
        let Some(mut next) = next else { return false };
        for index in indices
            .split(['[', ']'])
            .filter(|s| !s.is_empty())
            .filter_map(|s| s.parse::<usize>().ok())
        {
            match next.get(index) {
                Some(v) => next = v.clone(),
                None => return false,
            }
        }
        value = next;
    }
    true
}
