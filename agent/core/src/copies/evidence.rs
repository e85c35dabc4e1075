//! Copy evidence: what of a page's content is in the labeled sets, and the
//! rules that turn it into a decision.
//!
//! A&H's `contains` is a ratio: a copy padded with unrelated text sinks below
//! any threshold, and a copy edited inside every paragraph loses every chunk
//! hash. So a page is judged on four kinds of evidence, each a rule of its
//! own that the verdict names when it fires:
//!
//! - `whole_content`: the normalised content's hash is labeled;
//! - `labeled_chunks`: contains(L, f) ≥ `labels.flag_threshold` (seed 001);
//! - `labeled_shingles`: matched / sampled shingles ≥ `labels.shingle_threshold`
//!   on a page with at least `labels.shingle_min` of them — survives a word
//!   changed in every paragraph;
//! - `labeled_text`: the *amount* of labeled text, whatever else the page
//!   holds — `labels.evidence_chars` characters of matched chunks or
//!   `labels.evidence_shingles` matched shingles;
//! - `near_duplicate`: a labeled page's SimHash within
//!   `labels.near_duplicate_bits` bits (seed 002);
//! - `spun`: the page's immutable grams (`fingerprints::immutables`) match
//!   at `labels.spun_threshold`, spread over the page — a copy whose words
//!   were swapped for synonyms. It fires only when none of the others did:
//!   exact and near duplicates keep their own rules, as DSpin sets them
//!   apart (§V-E).

use crate::fingerprints::chunks::{self, Chunks};
use crate::labels::config::LabelSettings;
use crate::labels::{key, LabeledSets, MAX_SETS};
use crate::verdict::{Kind, LabelCount, Reason, Verdict};

/// What a page's content has in common with the labeled sets.
#[derive(Debug, Default)]
pub struct Evidence {
    pub chunks: u32,
    pub stop_chunks: u32,
    pub short_chunks: u32,
    /// Chunks eligible for matching (not stop, not short).
    pub eligible: u32,
    pub matched_chunks: u32,
    pub labeled_chars: u32,
    pub whole_match: bool,
    pub shingles: u32,
    pub matched_shingles: u32,
    /// Sampled immutable grams of the page, and those labeled.
    pub immutables: u32,
    pub matched_immutables: u32,
    /// Where the matched grams lie (`immutables::spread`).
    pub spread: f64,
    per_label_chunks: [u32; MAX_SETS],
    per_label_shingles: [u32; MAX_SETS],
    per_label_immutables: [u32; MAX_SETS],
    /// Distance to the nearest labeled page's SimHash, and the sets holding it.
    pub near: Option<(u32, u32)>,
    /// The sets the page is the origin of that it matched (a bit each):
    /// their matches are left out of everything above.
    pub origin: u32,
}

/// Looks a page's chunks, whole content, shingles and immutable grams (in
/// page order) up, in one batch (the memory reads overlap), and its SimHash
/// in the banded tables. Matches in the sets of `origin` (a bit each: the
/// page is on their origin site) are noted, not counted.
pub fn gather(
    sets: &LabeledSets,
    chunks: &Chunks,
    immutables: &[u64],
    min_chars: u32,
    origin: u32,
) -> Evidence {
    let mut e = Evidence {
        shingles: chunks.shingles.len() as u32,
        immutables: immutables.len() as u32,
        ..Default::default()
    };
    let eligible = |c: &&chunks::Chunk| c.matchable(min_chars);
    for chunk in &chunks.chunks {
        e.chunks += 1;
        e.stop_chunks += chunk.stop as u32;
        e.short_chunks += (!chunk.stop && chunk.chars < min_chars) as u32;
    }
    e.eligible = e.chunks - e.stop_chunks - e.short_chunks;
    if sets.sets().is_empty() {
        return e;
    }
    let mut keys = Vec::with_capacity(e.eligible as usize + 1 + chunks.shingles.len());
    let mut chars = Vec::with_capacity(e.eligible as usize);
    for chunk in chunks.chunks.iter().filter(eligible) {
        keys.push(key(&chunk.hash));
        chars.push(chunk.chars);
    }
    keys.push(key(&chunks.whole));
    keys.extend_from_slice(&chunks.shingles);
    keys.extend_from_slice(immutables);
    let mut masks = Vec::new();
    sets.lookup_many(&keys, &mut masks);
    if origin != 0 {
        for m in masks.iter_mut() {
            e.origin |= *m & origin;
            *m &= !origin;
        }
    }
    let (chunk_masks, rest) = masks.split_at(e.eligible as usize);
    e.whole_match = rest[0] != 0;
    for (&mask, &n) in chunk_masks.iter().zip(&chars) {
        if mask != 0 {
            e.matched_chunks += 1;
            e.labeled_chars += n;
            add_bits(&mut e.per_label_chunks, mask);
        }
    }
    let (shingle_masks, immutable_masks) = rest[1..].split_at(chunks.shingles.len());
    for &mask in shingle_masks {
        if mask != 0 {
            e.matched_shingles += 1;
            add_bits(&mut e.per_label_shingles, mask);
        }
    }
    let matched: Vec<bool> = immutable_masks.iter().map(|&m| m != 0).collect();
    for &mask in immutable_masks {
        if mask != 0 {
            e.matched_immutables += 1;
            add_bits(&mut e.per_label_immutables, mask);
        }
    }
    e.spread = crate::fingerprints::immutables::spread(&matched);
    e.near = chunks.simhash.and_then(|h| {
        // near_duplicate_bits is checked ≤ 3 at start-up; 3 finds every page within 3 bits.
        let (mask, d) = sets.nearest_simhash(h, crate::fingerprints::simhash::MAX_DISTANCE)?;
        e.origin |= mask & origin;
        (mask & !origin != 0).then_some((mask & !origin, d))
    });
    e
}

fn add_bits(counts: &mut [u32; MAX_SETS], mask: u32) {
    for (bit, count) in counts.iter_mut().enumerate() {
        *count += (mask >> bit) & 1;
    }
}

/// The sets the page matched (or is a near duplicate in), with what it matched of each.
fn label_counts(e: &Evidence, sets: &LabeledSets, near_mask: u32) -> Vec<LabelCount> {
    sets.sets()
        .iter()
        .enumerate()
        .filter(|&(i, _)| {
            e.per_label_chunks[i] > 0
                || e.per_label_shingles[i] > 0
                || e.per_label_immutables[i] > 0
                || near_mask >> i & 1 == 1
        })
        .map(|(i, set)| LabelCount {
            label: set.name.clone(),
            chunks: e.per_label_chunks[i],
            shingles: e.per_label_shingles[i],
            immutables: e.per_label_immutables[i],
        })
        .collect()
}

/// The copy rules that fire on the evidence (and the figures `decide` put
/// in the verdict), in the order the verdict lists them.
fn fired(e: &Evidence, v: &Verdict, near: bool, rules: &LabelSettings) -> Vec<Reason> {
    let mut fired = Vec::new();
    if e.whole_match {
        fired.push(Reason::WholeContent);
    }
    if v.contains.is_some_and(|c| c >= rules.flag_threshold) {
        fired.push(Reason::LabeledChunks);
    }
    if e.shingles >= rules.shingle_min
        && v.shingle_contains
            .is_some_and(|c| c >= rules.shingle_threshold)
    {
        fired.push(Reason::LabeledShingles);
    }
    if (rules.evidence_chars > 0 && e.labeled_chars >= rules.evidence_chars)
        || (rules.evidence_shingles > 0 && e.matched_shingles >= rules.evidence_shingles)
    {
        fired.push(Reason::LabeledText);
    }
    if near {
        fired.push(Reason::NearDuplicate);
    }
    // Exact and near duplicates keep their own rules; `spun` is what is left.
    if fired.is_empty()
        && e.matched_immutables >= rules.spun_min_matched
        && v.spun_contains.is_some_and(|c| c >= rules.spun_threshold)
        && e.spread >= rules.spun_spread
    {
        fired.push(Reason::Spun);
    }
    fired
}

/// Fills the verdict's figures from the evidence and applies the rules: a
/// page that passed the filters is flagged; on a dropped page the rules that
/// fired follow the drop reason as notes.
pub fn decide(
    e: &Evidence,
    chunks: &Chunks,
    sets: &LabeledSets,
    rules: &LabelSettings,
    v: &mut Verdict,
) {
    v.chunks = e.chunks;
    v.stop_chunks = e.stop_chunks;
    v.short_chunks = e.short_chunks;
    v.matched_chunks = e.matched_chunks;
    v.labeled_chars = e.labeled_chars;
    v.whole_match = e.whole_match;
    v.shingles = e.shingles;
    v.matched_shingles = e.matched_shingles;
    v.content_sha1 = Some(chunks::to_hex(&chunks.whole));
    v.simhash = chunks.simhash.map(|h| format!("{h:016x}"));
    v.contains = (e.eligible > 0).then(|| e.matched_chunks as f64 / e.eligible as f64);
    v.shingle_contains = (e.shingles > 0).then(|| e.matched_shingles as f64 / e.shingles as f64);
    let near = e
        .near
        .filter(|&(_, d)| rules.near_duplicate_bits > 0 && d <= rules.near_duplicate_bits);
    v.near_duplicate = near.map(|(_, d)| d);
    v.immutables = e.immutables;
    v.matched_immutables = e.matched_immutables;
    if e.immutables > 0 {
        v.spun_contains = Some(e.matched_immutables as f64 / e.immutables as f64);
        v.spun_spread = Some(e.spread);
    }
    let near_mask = near.map_or(0, |(mask, _)| mask);
    v.labels = label_counts(e, sets, near_mask);
    if e.origin != 0 {
        v.origin_of = sets
            .sets()
            .iter()
            .enumerate()
            .filter(|&(i, _)| e.origin >> i & 1 == 1)
            .map(|(_, set)| set.name.clone())
            .collect();
        v.reasons.push(Reason::LabeledOrigin);
    }

    let fired = fired(e, v, near.is_some(), rules);
    if fired.is_empty() {
        return;
    }
    if v.verdict == Kind::Drop {
        // After the drop reason (always first), before the other notes.
        let at = 1.min(v.reasons.len());
        v.reasons.splice(at..at, fired);
    } else {
        v.verdict = Kind::Flag;
        v.reasons.splice(0..0, fired);
    }
}
