//! The substantive-text filters (Zhang et al.'s DSpin, §V-B, the filters a
//! page passes before it is worth matching): visible text at all, the site's
//! content tag where a rule names one, enough words of main content, not
//! mostly links. The thresholds are `[filters]`; the content tag comes from
//! the per-site rules (`rules/sites.toml`, `[[site]]`).
//!
//! A page one of them rejects is dropped with the filter's reason. Language
//! is judged after them, on the content they let through (`language`).

use crate::analyse::Analysis;
use crate::extract::Content;
use crate::verdict::Reason;
use serde::Deserialize;

/// Why a page carries no substantive text, or `None` when it does. The
/// order is the reasons' precedence: the first that holds is given.
pub fn reject(analysis: &Analysis, content: &Content, settings: &FilterSettings) -> Option<Reason> {
    if analysis.words == 0 {
        Some(Reason::NoVisibleText)
    } else if analysis.content_tag == Some(false) {
        Some(Reason::NoContentTag)
    } else if content.words < settings.min_words {
        Some(Reason::TooShort)
    } else if link_density(content) >= settings.max_link_density {
        Some(Reason::LinkDense)
    } else {
        None
    }
}

/// Links per word of the main content (0 where it has no words).
pub fn link_density(content: &Content) -> f64 {
    if content.words > 0 {
        content.links as f64 / content.words as f64
    } else {
        0.0
    }
}

/// `[filters]`: the thresholds of the filters above.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilterSettings {
    pub min_words: u32,
    pub max_link_density: f64,
}

impl FilterSettings {
    pub(crate) fn validate(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.max_link_density > 0.0,
            "configuration: key `filters.max_link_density`: must be greater than 0"
        );
        Ok(())
    }
}
