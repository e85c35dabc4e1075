//! The extractor a configuration describes: the content scorer (the model of
//! `rules_dir/extractor.json`, else the shipped one, or the plain plateau),
//! the closing headings, the page-type classifier and the site rules. The
//! settings say which; the model files are read and checked here, at start-up.

use super::closing::Headings;
use super::extractor::Extractor;
use super::model::Model;
use super::{pagetype, ExtractSettings, Scorer, ScorerKind};
use crate::durable::read_optional;
use crate::input::site::SiteRule;
use crate::language::LanguageSettings;
use anyhow::Context;
use std::path::Path;

/// The extractor: its scorer, closing headings and page types from
/// `rules_dir` (or the shipped files), its site rules, its time budget.
pub fn extractor(
    extract: &ExtractSettings,
    rules_dir: Option<&Path>,
    site_rules: Vec<SiteRule>,
    max_page_ms: u64,
    language: LanguageSettings,
) -> anyhow::Result<Extractor> {
    Extractor::new(
        scorer(extract, rules_dir)?,
        closing_headings(rules_dir)?,
        page_types(rules_dir)?,
        site_rules,
        max_page_ms,
        language,
    )
}

/// The content scorer: the model of `rules_dir/extractor.json` (else the
/// shipped one) or the plain plateau, as `extract.scorer` says.
pub fn scorer(extract: &ExtractSettings, rules_dir: Option<&Path>) -> anyhow::Result<Scorer> {
    if extract.scorer == ScorerKind::Plateau {
        return Ok(Scorer::Plateau);
    }
    let (text, origin) = match rules_dir.map(|d| {
        (
            read_optional(&d.join("extractor.json")),
            d.join("extractor.json"),
        )
    }) {
        Some((Ok(Some(text)), path)) => (text, path.display().to_string()),
        Some((Err(e), _)) => return Err(e),
        _ => (
            super::model::SHIPPED.to_string(),
            "the shipped rules/extractor.json".to_string(),
        ),
    };
    let model = Box::new(Model::parse(&text).with_context(|| origin.clone())?);
    anyhow::ensure!(
        extract.scorer != ScorerKind::Pruned || model.prunes(),
        "extract.scorer = \"pruned\": {origin} has no prune cut (\"prune\"); \
         bench/train_extractor.py writes one"
    );
    Ok(match extract.scorer {
        ScorerKind::Auto | ScorerKind::Pruned => Scorer::Auto {
            model,
            below: extract.learned_below as f32,
            prune: extract.scorer == ScorerKind::Pruned,
        },
        _ => Scorer::Learned(model),
    })
}

/// The headings at which content ends: `rules_dir/closing_headings.txt`,
/// else the shipped list. An empty file turns the cut off.
pub fn closing_headings(rules_dir: Option<&Path>) -> anyhow::Result<Headings> {
    if let Some(dir) = rules_dir {
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
pub fn page_types(rules_dir: Option<&Path>) -> anyhow::Result<pagetype::Model> {
    if let Some(dir) = rules_dir {
        let path = dir.join("pagetype.json");
        if let Some(text) = read_optional(&path)? {
            return pagetype::Model::parse(&text)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()));
        }
    }
    Ok(pagetype::Model::shipped())
}
