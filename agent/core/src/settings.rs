//! Configuration: shipped defaults (`rules/defaults.toml`, built into the
//! binary), then the `defaults.toml` of a `rules_dir` if one is set, then the
//! config file, then `CRAWLSIEVE_<SECTION>__<KEY>` environment variables, then
//! flags. Every mistake — an unknown key, a bad value — fails at start-up with
//! the key and the reason.

use crate::durable::read_optional;
use anyhow::{bail, Context};
use config::{Config, Environment, File, FileFormat};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Environment variables named `CRAWLSIEVE_…` that are not configuration
/// keys: the config file's path and the secrets (read where they are used,
/// never from the layered configuration, so they never appear in it).
pub const NOT_KEYS: &[&str] = &[
    "CRAWLSIEVE_CONFIG",
    "CRAWLSIEVE_HUB_TOKEN",
    "CRAWLSIEVE_HUB_READ_TOKEN",
    "CRAWLSIEVE_HUB_COUNT_TOKEN",
    "CRAWLSIEVE_INGEST_TOKEN",
    "CRAWLSIEVE_METRICS_TOKEN",
    "CRAWLSIEVE_NATS_CREDENTIALS",
    "CRAWLSIEVE_NATS_USER",
    "CRAWLSIEVE_NATS_PASSWORD",
    "CRAWLSIEVE_KAFKA_PROPERTIES",
    "CRAWLSIEVE_REDIS_PASSWORD",
];

// Each section is its module's own; here they are put together.
pub use crate::extract::{ExtractSettings, ScorerKind};
pub use crate::filters::FilterSettings;
pub use crate::fingerprints::chunks::ChunkSettings;
pub use crate::fingerprints::stopchunks::StopChunkSettings;
pub use crate::input::site::SiteRule;
pub use crate::input::InputSettings;
pub use crate::labels::config::{HubFollowSettings, LabelSettings};
pub use crate::language::{LanguageSettings, UnknownLanguage};
pub use crate::neighborhoods::config::NeighborhoodSettings;
pub use crate::output::OutputSettings;

/// The shipped defaults, as data.
pub const DEFAULTS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../rules/defaults.toml"
));
/// The shipped stop-chunk list.
pub const STOPCHUNKS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../rules/stopchunks.txt"
));
/// The shipped per-site content-tag rules.
pub const SITES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../rules/sites.toml"
));

/// Keys whose value is a list: a string given for one (from the environment
/// or `--set`) is split at commas, so `--set language.allow=eng,deu` and
/// `CRAWLSIEVE_LANGUAGE__ALLOW=eng,deu` both work.
pub const LIST_KEYS: &[&str] = &[
    "language.allow",
    "labels.files",
    "input.html_content_types",
    "input.revisit_verdicts",
    "filters.rules",
    "filters.opt_out.drop",
    "filters.opt_out.agents",
    "filters.urls.block",
    "filters.urls.allow",
];

/// More judging threads than this is a mistake (each costs a stack and its
/// share of the queue; past the cores they only wait).
pub const MAX_WORKERS: usize = 1024;

/// Whether `key` takes a list (`LIST_KEYS`, or a set's trusted origin sites
/// `labels.origins.NAME`).
pub fn is_list_key(key: &str) -> bool {
    LIST_KEYS.contains(&key) || key.starts_with("labels.origins.")
}

/// A list value from a comma-separated string; other values as they are.
fn as_list(value: &config::Value) -> Option<config::Value> {
    let text = value.clone().into_string().ok()?;
    let items: Vec<config::Value> = text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| config::Value::from(s.to_string()))
        .collect();
    Some(items.into())
}

/// The `config` crate names a bad enum value by the Rust type ("enum
/// ScorerKind does not have variant constructor foo"); a user needs the
/// values that would have worked. `T`'s own deserializer lists them.
pub fn explain_enum<T: serde::de::DeserializeOwned>(message: String, type_name: &str) -> String {
    let marker = format!("enum {type_name} does not have variant constructor ");
    let Some(at) = message.find(&marker) else {
        return message;
    };
    let rest = &message[at + marker.len()..];
    let bad: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
    let probe = serde::de::value::StrDeserializer::<serde::de::value::Error>::new("\u{0}");
    let expected = match T::deserialize(probe) {
        Err(e) => e
            .to_string()
            .split_once("expected ")
            .map(|(_, list)| list.to_string())
            .unwrap_or_default(),
        Ok(_) => String::new(),
    };
    format!(
        "{}unknown value `{bad}`, expected {expected}{}",
        &message[..at],
        &rest[bad.len()..]
    )
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Worker threads for the pipeline; 0 = one per core.
    #[serde(default)]
    pub workers: usize,
    /// A directory with `defaults.toml`, `stopchunks.txt`, `sites.toml` to use
    /// instead of the shipped rules (files missing there fall back to shipped ones).
    #[serde(default)]
    pub rules_dir: Option<PathBuf>,
    pub input: InputSettings,
    pub extract: ExtractSettings,
    pub filters: FilterSettings,
    pub language: LanguageSettings,
    pub chunks: ChunkSettings,
    pub stopchunks: StopChunkSettings,
    pub labels: LabelSettings,
    pub neighborhoods: NeighborhoodSettings,
    pub dedup: crate::dedup::DedupSettings,
    #[serde(default)]
    pub output: OutputSettings,
    /// The `[agent]` section belongs to the long-running agent, which reads
    /// it from the same layers itself (`crawlsieve-daemon`'s
    /// `AgentSettings::load`): the core lets it through unread.
    #[serde(default, rename = "agent")]
    _agent: Option<serde::de::IgnoredAny>,
    /// Extra per-site content-tag rules (added to those of `sites.toml`).
    #[serde(default)]
    pub site: Vec<SiteRule>,
}

#[derive(Debug, Default, Deserialize)]
struct SitesFile {
    #[serde(default)]
    site: Vec<SiteRule>,
}

impl Settings {
    /// Loads the layered configuration; `overrides` are `(key, value)` pairs
    /// from flags, e.g. `("labels.files", ...)`.
    pub fn load(
        config_file: Option<&Path>,
        overrides: &[(&str, config::Value)],
    ) -> anyhow::Result<Self> {
        let config = Self::layers(config_file, overrides)?;
        let layers = crate::settings_keys::Layers {
            config_file,
            overrides,
        };
        let settings: Settings = crate::settings_keys::read(&config, "", &layers).map_err(
            |crate::settings_keys::KeyError(message)| {
                let message = explain_enum::<ScorerKind>(message, "ScorerKind");
                let message = explain_enum::<UnknownLanguage>(message, "UnknownLanguage");
                let message = explain_enum::<crate::dedup::Action>(message, "Action");
                anyhow::anyhow!("configuration: {message}")
            },
        )?;
        settings.validate()?;
        Ok(settings)
    }

    /// Every layer of the configuration merged, unread: what `load` reads
    /// the core's sections from, and the agent its own.
    pub fn layers(
        config_file: Option<&Path>,
        overrides: &[(&str, config::Value)],
    ) -> anyhow::Result<Config> {
        // Pass 1 only finds `rules_dir`; pass 2 puts its defaults under the file.
        let rules_dir = Self::build(None, config_file, overrides)?
            .get::<Option<PathBuf>>("rules_dir")
            .unwrap_or(None);
        let rules_defaults = match &rules_dir {
            Some(dir) => read_optional(&dir.join("defaults.toml"))?,
            None => None,
        };
        Self::build(rules_defaults.as_deref(), config_file, overrides)
    }

    /// The shipped defaults alone (what the library uses when given nothing).
    pub fn defaults() -> Self {
        Self::load(None, &[]).expect("the shipped defaults are valid")
    }

    fn build(
        rules_defaults: Option<&str>,
        config_file: Option<&Path>,
        overrides: &[(&str, config::Value)],
    ) -> anyhow::Result<Config> {
        let mut b = Config::builder().add_source(File::from_str(DEFAULTS, FileFormat::Toml));
        if let Some(text) = rules_defaults {
            b = b.add_source(File::from_str(text, FileFormat::Toml));
        }
        if let Some(path) = config_file {
            if !path.exists() {
                bail!("config file {}: not found", path.display());
            }
            b = b.add_source(File::from(path).format(FileFormat::Toml).required(true));
        }
        // Secrets and the config file's path share the prefix but are not
        // keys: left out, or the unknown key would stop the start-up.
        let vars: config::Map<String, String> = std::env::vars()
            .filter(|(k, _)| k.starts_with("CRAWLSIEVE_") && !NOT_KEYS.contains(&k.as_str()))
            .collect();
        let environment = LIST_KEYS.iter().fold(
            Environment::with_prefix("CRAWLSIEVE")
                .source(Some(vars))
                .prefix_separator("_")
                .separator("__")
                .try_parsing(true)
                .list_separator(","),
            |env, key| env.with_list_parse_key(key),
        );
        b = b.add_source(environment);
        for (key, value) in overrides {
            let list = is_list_key(key).then(|| as_list(value)).flatten();
            b = b.set_override(*key, list.unwrap_or_else(|| value.clone()))?;
        }
        b.build().map_err(|e| anyhow::anyhow!("configuration: {e}"))
    }

    /// Each section checks its own keys; the first mistake names its key.
    fn validate(&self) -> anyhow::Result<()> {
        if self.workers > MAX_WORKERS {
            bail!(
                "workers = {}: at most {MAX_WORKERS} (judging threads; past the cores they only wait; 0 = one per core)",
                self.workers
            );
        }
        self.input.validate()?;
        self.filters.validate()?;
        self.language.validate()?;
        self.extract.validate()?;
        self.stopchunks.validate()?;
        self.labels.validate()?;
        self.dedup.validate()?;
        self.neighborhoods.validate()
    }

    /// The extractor these settings describe (built in `extract::build`).
    pub fn extractor(&self) -> anyhow::Result<crate::extract::extractor::Extractor> {
        crate::extract::build::extractor(
            &self.extract,
            self.rules_dir.as_deref(),
            self.site_rules()?,
            self.input.max_page_ms,
            self.language.clone(),
        )
    }

    /// The stop-chunk list: `rules_dir/stopchunks.txt`, else the shipped one.
    pub fn stopchunk_list(&self) -> anyhow::Result<String> {
        if let Some(dir) = &self.rules_dir {
            if let Some(text) = read_optional(&dir.join("stopchunks.txt"))? {
                return Ok(text);
            }
        }
        Ok(STOPCHUNKS.to_string())
    }

    /// Site rules: `rules_dir/sites.toml` (else the shipped one) plus `site` entries.
    pub fn site_rules(&self) -> anyhow::Result<Vec<SiteRule>> {
        let text = match &self.rules_dir {
            Some(dir) => {
                read_optional(&dir.join("sites.toml"))?.unwrap_or_else(|| SITES.to_string())
            }
            None => SITES.to_string(),
        };
        let file: SitesFile = toml::from_str(&text).context("sites.toml")?;
        Ok(file
            .site
            .into_iter()
            .chain(self.site.iter().cloned())
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_defaults_load() {
        let s = Settings::defaults();
        assert_eq!(s.filters.min_words, 50);
        assert!((s.filters.max_link_density - 0.2).abs() < 1e-9);
        assert_eq!(s.language.unknown, UnknownLanguage::Keep);
        assert!(s.language.allow.is_empty());
    }

    #[test]
    fn mistakes_name_the_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.toml");
        std::fs::write(&path, "[filters]\nmin_wrods = 3\n").unwrap();
        let err = Settings::load(Some(&path), &[]).unwrap_err().to_string();
        assert!(err.contains("min_wrods"), "{err}");
        std::fs::write(&path, "[language]\nallow = [\"english\"]\n").unwrap();
        let err = Settings::load(Some(&path), &[]).unwrap_err().to_string();
        assert!(err.contains("language.allow"), "{err}");
        // Codes only the profiles know, and macrolanguages, are accepted.
        std::fs::write(&path, "[language]\nallow = [\"kaz\", \"hbs\", \"eng\"]\n").unwrap();
        assert!(Settings::load(Some(&path), &[]).is_ok());
        std::fs::write(&path, "[language]\nmin_margin = 9\n").unwrap();
        let err = Settings::load(Some(&path), &[]).unwrap_err().to_string();
        assert!(err.contains("language.min_margin"), "{err}");
        std::fs::write(&path, "[language]\noutsider_probability = 0.2\n").unwrap();
        let err = Settings::load(Some(&path), &[]).unwrap_err().to_string();
        assert!(err.contains("language.outsider_probability"), "{err}");
        std::fs::write(&path, "[language]\noutsider_probability = 0\n").unwrap();
        assert!(
            Settings::load(Some(&path), &[]).is_ok(),
            "0 turns the veto off"
        );
        // Comma lists in flags as in the environment; enum mistakes list the values.
        let s = Settings::load(None, &[("language.allow", "eng, deu".into())]).unwrap();
        assert_eq!(s.language.allow, ["eng", "deu"]);
        let err = Settings::load(None, &[("extract.scorer", "foo".into())])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("unknown value `foo`") && err.contains("`pruned`"),
            "{err}"
        );
        assert!(err.contains("extract.scorer"), "{err}");
        let err = Settings::load(None, &[("workers", 1_000_000.into())])
            .unwrap_err()
            .to_string();
        assert!(err.contains("workers") && err.contains("at most"), "{err}");
        std::fs::write(&path, "[filters]\nmin_words = 7\n").unwrap();
        let s = Settings::load(Some(&path), &[("filters.min_words", 9.into())]).unwrap();
        assert_eq!(s.filters.min_words, 9, "flags override the file");
    }
}
