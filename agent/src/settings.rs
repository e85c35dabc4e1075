//! Configuration: shipped defaults (`rules/defaults.toml`, built into the
//! binary), then the `defaults.toml` of a `rules_dir` if one is set, then the
//! config file, then `CRAWLSIEVE_<SECTION>__<KEY>` environment variables, then
//! flags. Every mistake — an unknown key, a bad value — fails at start-up with
//! the key and the reason.

use anyhow::{bail, Context};
use config::{Config, Environment, File, FileFormat};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The shipped defaults, as data.
pub const DEFAULTS: &str = include_str!("../../rules/defaults.toml");
/// The shipped stop-chunk list.
pub const STOPCHUNKS: &str = include_str!("../../rules/stopchunks.txt");
/// The shipped per-site content-tag rules.
pub const SITES: &str = include_str!("../../rules/sites.toml");

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
    #[serde(default)]
    pub output: OutputSettings,
    /// The long-running agent (`crawlsieve agent`).
    #[serde(default)]
    pub agent: Option<crate::daemon::config::AgentSettings>,
    /// Extra per-site content-tag rules (added to those of `sites.toml`).
    #[serde(default)]
    pub site: Vec<SiteRule>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputSettings {
    pub max_page_bytes: usize,
    /// The HTML pass of one page may take this long; beyond, `error` / `too_slow`. 0: no budget.
    pub max_page_ms: u64,
    pub html_content_types: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtractSettings {
    pub scorer: ScorerKind,
    /// With `scorer = "auto"` or `"pruned"`: the share of a page's words under which the
    /// plateau's choice is handed to the learned scorer.
    pub learned_below: f64,
}

/// How the main content is chosen (see `extract`).
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ScorerKind {
    /// The learned block scorer of `extractor.json`.
    Learned,
    /// The weighted tag plateau alone (no model).
    Plateau,
    /// The plateau, and the learned scorer where the plateau keeps less
    /// than `extract.learned_below` of the page's words.
    Auto,
    /// As `Auto`, and elsewhere the plateau's choice pruned by the model:
    /// the blocks of it the model calls boilerplate are left out.
    Pruned,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilterSettings {
    pub min_words: u32,
    pub max_link_density: f64,
}

#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum UnknownLanguage {
    Keep,
    Drop,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LanguageSettings {
    pub allow: Vec<String>,
    pub min_confidence: f64,
    pub min_margin: f64,
    /// How sure langid's model must be that a page is in one of the 21
    /// languages only it knows to veto the other detectors' code, and to
    /// name that language (README, "Languages").
    pub outsider_probability: f64,
    /// Whether langid names the languages only it knows where it vetoes the
    /// other detectors or they found no code (README, "Languages").
    pub outsider_codes: bool,
    /// How much better a page must read as the declaration of a language
    /// mistaken for the decided one to veto that code (README, "Languages").
    pub udhr_margin: f64,
    /// How many more of a page's words than its language's own declaration
    /// has must be outside that language's 20,000 most frequent to veto the
    /// code where a relative reads close (README, "Languages").
    pub words_margin: f64,
    /// Where the decided code has no word list: how many times more of a
    /// page's words must be in a relative's declaration only than in the
    /// code's only to veto the code (README, "Languages").
    pub declaration_words: f64,
    pub unknown: UnknownLanguage,
    pub sample_bytes: usize,
}

impl LanguageSettings {
    pub fn thresholds(&self) -> crate::language::Thresholds {
        crate::language::Thresholds {
            min_confidence: self.min_confidence,
            min_margin: self.min_margin,
            outsider_probability: self.outsider_probability,
            outsider_codes: self.outsider_codes,
            udhr_margin: self.udhr_margin,
            words_margin: self.words_margin,
            declaration_words: self.declaration_words,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChunkSettings {
    pub min_chars: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StopChunkSettings {
    pub fp_rate: f64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelSettings {
    /// Ratio rule (A&H's contains): matched chunks / eligible chunks.
    pub flag_threshold: f64,
    /// Ratio rule on shingles: matched / sampled shingles of the page ...
    pub shingle_threshold: f64,
    /// ... counted only on pages with at least this many sampled shingles.
    pub shingle_min: u32,
    /// Absolute rule: this many characters of labeled chunks on the page flag it, whatever the ratio.
    pub evidence_chars: u32,
    /// Absolute rule: this many labeled shingles (sampled) on the page flag it, whatever the ratio.
    pub evidence_shingles: u32,
    /// Near-duplicate rule: a labeled page's SimHash within this many bits (0 = off, at most 3).
    pub near_duplicate_bits: u32,
    /// Labeled-set files to load: signed binary files or hex text lists.
    #[serde(default)]
    pub files: Vec<PathBuf>,
    /// The hub's ed25519 public key, 64 hex digits (signed files and hub updates are checked with it).
    #[serde(default)]
    pub public_key: Option<String>,
    /// ... or a file holding it.
    #[serde(default)]
    pub public_key_file: Option<PathBuf>,
    /// Follow labeled sets published by a hub.
    #[serde(default)]
    pub hub: Option<crate::labels::follow::HubFollowSettings>,
}

impl LabelSettings {
    /// The configured public key, if any.
    pub fn public_key(&self) -> anyhow::Result<Option<ed25519_dalek::VerifyingKey>> {
        use crate::labels::keys;
        match (&self.public_key, &self.public_key_file) {
            (Some(_), Some(_)) => {
                bail!("configuration: keys `labels.public_key` and `labels.public_key_file`: set one, not both")
            }
            (Some(hex), None) => keys::parse_public(hex)
                .map(Some)
                .map_err(|e| anyhow::anyhow!("configuration: key `labels.public_key`: {e}")),
            (None, Some(path)) => keys::read_public(path)
                .map(Some)
                .map_err(|e| anyhow::anyhow!("configuration: key `labels.public_key_file`: {e}")),
            (None, None) => Ok(None),
        }
    }
}

/// `[neighborhoods]`: bad-neighborhood detection (see `neighborhoods`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NeighborhoodSettings {
    pub enabled: bool,
    pub min_pages: u32,
    /// Fixed badness threshold; 0 = mean + one standard deviation.
    pub threshold: f64,
    pub min_badness: f64,
    /// The moving threshold never rises above this: a neighborhood this bad is bad
    /// however many others are.
    pub max_threshold: f64,
    pub sweep_every: u64,
    /// Where the state is saved at the end of a run and restored from at the start.
    #[serde(default)]
    pub snapshot: Option<PathBuf>,
    /// Heritrix crawl.log-format file that site flags are appended to.
    #[serde(default)]
    pub flag_log: Option<PathBuf>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSettings {
    /// Where verdicts go: a file path, or `-` for stdout (the default).
    #[serde(default)]
    pub path: Option<String>,
    /// Include the extracted content in every verdict.
    #[serde(default)]
    pub content: bool,
    /// Include the page's hidden-style fingerprint (`style_fp`, README
    /// "Style clusters") in every verdict. Off by default: it costs more
    /// than 5 % of throughput.
    #[serde(default)]
    pub style_fp: bool,
}

/// A per-site content-tag rule.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteRule {
    /// The host it applies to, and its subdomains.
    pub host: String,
    /// CSS selector of the element holding the content.
    pub content: String,
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
        // Pass 1 only finds `rules_dir`; pass 2 puts its defaults under the file.
        let rules_dir = Self::build(None, config_file, overrides)?
            .get::<Option<PathBuf>>("rules_dir")
            .unwrap_or(None);
        let rules_defaults = match &rules_dir {
            Some(dir) => read_optional(&dir.join("defaults.toml"))?,
            None => None,
        };
        let config = Self::build(rules_defaults.as_deref(), config_file, overrides)?;
        let settings: Settings = config
            .try_deserialize()
            .map_err(|e| anyhow::anyhow!("configuration: {e}"))?;
        settings.validate()?;
        Ok(settings)
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
        b = b.add_source(
            Environment::with_prefix("CRAWLSIEVE")
                .prefix_separator("_")
                .separator("__")
                .try_parsing(true)
                .list_separator(",")
                .with_list_parse_key("language.allow")
                .with_list_parse_key("labels.files")
                .with_list_parse_key("input.html_content_types"),
        );
        for (key, value) in overrides {
            b = b.set_override(*key, value.clone())?;
        }
        b.build().map_err(|e| anyhow::anyhow!("configuration: {e}"))
    }

    fn validate(&self) -> anyhow::Result<()> {
        let check = |ok: bool, key: &str, why: &str| -> anyhow::Result<()> {
            if ok {
                Ok(())
            } else {
                bail!("configuration: key `{key}`: {why}")
            }
        };
        check(
            self.input.max_page_bytes >= 1024,
            "input.max_page_bytes",
            "must be at least 1024",
        )?;
        check(
            self.filters.max_link_density > 0.0,
            "filters.max_link_density",
            "must be greater than 0",
        )?;
        check(
            (0.0..=1.0).contains(&self.language.min_confidence),
            "language.min_confidence",
            "must be in [0, 1]",
        )?;
        check(
            (0.0..=5.0).contains(&self.language.min_margin),
            "language.min_margin",
            "must be in [0, 5] (nats per trigram)",
        )?;
        check(
            self.language.outsider_probability == 0.0
                || (0.5..=1.0).contains(&self.language.outsider_probability),
            "language.outsider_probability",
            "must be 0 (off) or in [0.5, 1]",
        )?;
        check(
            (0.0..=5.0).contains(&self.language.udhr_margin),
            "language.udhr_margin",
            "must be in [0, 5] (nats per trigram; 0 turns the check off)",
        )?;
        check(
            (0.0..=1.0).contains(&self.extract.learned_below),
            "extract.learned_below",
            "must be in [0, 1] (a share of the page's words)",
        )?;
        check(
            (0.0..=1.0).contains(&self.language.words_margin),
            "language.words_margin",
            "must be in [0, 1] (a share of words; 0 turns the check off)",
        )?;
        check(
            self.language.declaration_words == 0.0
                || (1.0..=100.0).contains(&self.language.declaration_words),
            "language.declaration_words",
            "must be 0 (off) or in [1, 100] (a ratio of word counts)",
        )?;
        check(
            self.language.sample_bytes >= 64,
            "language.sample_bytes",
            "must be at least 64",
        )?;
        for code in &self.language.allow {
            check(
                crate::language::is_known(code),
                "language.allow",
                &format!("`{code}` is not an ISO 639-3 code of a language crawlsieve detects (e.g. eng, deu, fra, kaz; README, \"Languages\")"),
            )?;
        }
        check(
            self.stopchunks.fp_rate > 0.0 && self.stopchunks.fp_rate < 1.0,
            "stopchunks.fp_rate",
            "must be in (0, 1)",
        )?;
        check(
            self.labels.flag_threshold > 0.0 && self.labels.flag_threshold <= 1.0,
            "labels.flag_threshold",
            "must be in (0, 1]",
        )?;
        for (value, key) in [
            (self.labels.shingle_threshold, "labels.shingle_threshold"),
            (
                self.neighborhoods.max_threshold,
                "neighborhoods.max_threshold",
            ),
        ] {
            check(value > 0.0 && value <= 1.0, key, "must be in (0, 1]")?;
        }
        check(
            self.labels.near_duplicate_bits <= crate::labels::simhash::MAX_DISTANCE,
            "labels.near_duplicate_bits",
            "must be at most 3 (the banded tables find every page within 3 bits, not beyond)",
        )?;
        check(
            self.neighborhoods.min_pages >= 1,
            "neighborhoods.min_pages",
            "must be at least 1",
        )?;
        check(
            (0.0..=1.0).contains(&self.neighborhoods.threshold),
            "neighborhoods.threshold",
            "must be in [0, 1] (0 = mean + one standard deviation)",
        )?;
        check(
            (0.0..=1.0).contains(&self.neighborhoods.min_badness),
            "neighborhoods.min_badness",
            "must be in [0, 1]",
        )?;
        check(
            self.neighborhoods.sweep_every >= 1,
            "neighborhoods.sweep_every",
            "must be at least 1",
        )?;
        let public = self.labels.public_key()?;
        if let Some(hub) = &self.labels.hub {
            check(
                hub.url.starts_with("http://") || hub.url.starts_with("https://"),
                "labels.hub.url",
                "must be an http:// or https:// URL",
            )?;
            check(
                !hub.sets.is_empty(),
                "labels.hub.sets",
                "name at least one set",
            )?;
            check(
                public.is_some(),
                "labels.hub",
                "following a hub needs `labels.public_key` or `labels.public_key_file` (updates are verified)",
            )?;
            check(
                (1..=300).contains(&hub.wait_seconds),
                "labels.hub.wait_seconds",
                "must be in 1..=300",
            )?;
        }
        Ok(())
    }

    /// The content scorer: the model of `rules_dir/extractor.json` (else the
    /// shipped one) or the plain plateau, as `extract.scorer` says.
    pub fn scorer(&self) -> anyhow::Result<crate::extract::Scorer> {
        use crate::extract::{model::Model, Scorer};
        if self.extract.scorer == ScorerKind::Plateau {
            return Ok(Scorer::Plateau);
        }
        let (text, origin) = match self.rules_dir.as_ref().map(|d| {
            (
                read_optional(&d.join("extractor.json")),
                d.join("extractor.json"),
            )
        }) {
            Some((Ok(Some(text)), path)) => (text, path.display().to_string()),
            Some((Err(e), _)) => return Err(e),
            _ => (
                crate::extract::model::SHIPPED.to_string(),
                "the shipped rules/extractor.json".to_string(),
            ),
        };
        let model = Box::new(Model::parse(&text).with_context(|| origin.clone())?);
        anyhow::ensure!(
            self.extract.scorer != ScorerKind::Pruned || model.prunes(),
            "extract.scorer = \"pruned\": {origin} has no prune cut (\"prune\"); \
             bench/train_extractor.py writes one"
        );
        Ok(match self.extract.scorer {
            ScorerKind::Auto | ScorerKind::Pruned => Scorer::Auto {
                model,
                below: self.extract.learned_below as f32,
                prune: self.extract.scorer == ScorerKind::Pruned,
            },
            _ => Scorer::Learned(model),
        })
    }

    /// The headings at which content ends: `rules_dir/closing_headings.txt`,
    /// else the shipped list. An empty file turns the cut off.
    pub fn closing_headings(&self) -> anyhow::Result<crate::extract::closing::Headings> {
        use crate::extract::closing::Headings;
        if let Some(dir) = &self.rules_dir {
            let path = dir.join("closing_headings.txt");
            if let Some(text) = read_optional(&path)? {
                return Headings::parse(&text).with_context(|| path.display().to_string());
            }
        }
        Ok(Headings::shipped().clone())
    }

    /// The page-type classifier: `rules_dir/pagetype.json` (made by
    /// `bench/train_pagetype.py`), else the shipped one. A malformed file is
    /// a start-up error naming it.
    pub fn page_types(&self) -> anyhow::Result<crate::extract::pagetype::Model> {
        use crate::extract::pagetype::Model;
        if let Some(dir) = &self.rules_dir {
            let path = dir.join("pagetype.json");
            if let Some(text) = read_optional(&path)? {
                return Model::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()));
            }
        }
        Ok(Model::shipped())
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

fn read_optional(path: &Path) -> anyhow::Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(anyhow::anyhow!("{}: {e}", path.display())),
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
        std::fs::write(&path, "[filters]\nmin_words = 7\n").unwrap();
        let s = Settings::load(Some(&path), &[("filters.min_words", 9.into())]).unwrap();
        assert_eq!(s.filters.min_words, 9, "flags override the file");
    }
}
