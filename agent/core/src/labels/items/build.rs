//! Items to grams, less the common ones.
//!
//! A gram that many items share is the benchmark's scaffolding ("which of
//! the following is a humorous edit of this artist or movie name", a
//! puzzle's rules): a page with another item of the same template holds it
//! too. Grams in at least `common_items` distinct items are marked
//! scaffolding: they count towards an item's run of grams, never towards
//! the share of its own words a page must hold (`ItemIndex::found`), so an
//! item that is mostly template is still found by its few words of its own,
//! and a sibling item is not found for the template.
//!
//! A gram common on the web (licence and legal boilerplate, a quiz site's
//! template) is dropped outright, as stop chunks are from article sets:
//! `common` holds what `labels build --common-in` finds on pages of several
//! sites of a reference crawl — blind discovery's notion of common, for grams.
//!
//! Identical items (the same text in two tasks) count once: a benchmark
//! that repeats an item does not make its grams scaffolding.

use super::read::RawItem;

/// A set of gram hashes (`wordgrams`), as the build takes them.
pub type Grams = FxHashSet<u64>;
use super::SCAFFOLD;
use super::{Item, ItemTable, MAX_GRAMS};
use crate::fingerprints::wordgrams::{grams, word_hashes};
use rustc_hash::{FxHashMap, FxHashSet};

/// Longest task name or id kept, in bytes (longer ones are cut on a
/// character boundary).
pub const MAX_ID: usize = 200;

/// What a build did, for its summary and `labels inspect`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct BuildStats {
    pub items: usize,
    /// Items whose text is another item's (kept, counted once for commonness).
    pub duplicates: usize,
    /// Items left with fewer grams than a page needs to show (too few
    /// words): kept in the table, never found.
    pub unmatchable: usize,
    /// Items all of whose grams are scaffolding: found only nearly whole
    /// (`items::WHOLE_SHARE`).
    pub all_scaffold: usize,
    /// Distinct grams marked scaffolding (common to `common_items` items).
    pub scaffold: usize,
    /// Distinct grams dropped as common on the web (`common`).
    pub dropped_common: usize,
    /// Distinct grams kept (scaffolding included).
    pub grams: usize,
}

/// The words and grams of one item.
struct Made {
    words: usize,
    /// Grams in order; the first `question` lie in the question alone.
    grams: Vec<u64>,
    question: usize,
}

fn make(item: &RawItem, n: usize, buf: &mut String) -> Made {
    let mut w = Vec::new();
    word_hashes(&item.question, buf, &mut w);
    let in_question = w.len();
    word_hashes(&item.answer, buf, &mut w);
    let mut out = Vec::with_capacity(w.len().saturating_sub(n - 1));
    let mut question = 0;
    grams(&w, n, |at, g| {
        if at + n <= in_question {
            question += 1;
        }
        out.push(g & !SCAFFOLD);
    });
    Made {
        words: w.len(),
        grams: out,
        question,
    }
}

/// The grams of `raw`'s items (as `make` makes them), with nothing dropped:
/// what `--common-in` looks for on a reference crawl's pages.
pub fn all_grams(raw: &[RawItem], n: usize) -> Grams {
    let mut buf = String::new();
    raw.iter()
        .flat_map(|i| make(i, n, &mut buf).grams)
        .collect()
}

/// The item table of `raw` with `n` words a gram; `common` holds grams as
/// `all_grams` makes them; `min_grams` is the rule's (`labels.items.min_grams`),
/// for counting the items no page can show.
pub fn build(
    raw: &[RawItem],
    n: usize,
    common_items: usize,
    common: &Grams,
    min_grams: usize,
) -> (ItemTable, BuildStats) {
    let mut buf = String::new();
    let made: Vec<Made> = raw.iter().map(|i| make(i, n, &mut buf)).collect();
    let mut stats = BuildStats {
        items: raw.len(),
        ..Default::default()
    };
    let in_items = items_per_gram(&made, &mut stats);
    let (mut dropped, mut scaffold): (FxHashSet<u64>, FxHashSet<u64>) = Default::default();
    for (&g, &count) in &in_items {
        if common.contains(&g) {
            dropped.insert(g);
        } else if count as usize >= common_items.max(2) {
            scaffold.insert(g);
        }
    }
    stats.dropped_common = dropped.len();
    stats.scaffold = scaffold.len();
    stats.grams = in_items.len() - dropped.len();

    let mut tasks: Vec<String> = Vec::new();
    let mut task_index: FxHashMap<&str, u32> = FxHashMap::default();
    let mut table = ItemTable {
        tasks: Vec::new(),
        items: Vec::with_capacity(raw.len()),
    };
    for (r, m) in raw.iter().zip(made) {
        let task = *task_index.entry(r.task.as_str()).or_insert_with(|| {
            tasks.push(cut(&r.task));
            tasks.len() as u32 - 1
        });
        let mut kept = Vec::with_capacity(m.grams.len());
        let (mut question, mut own) = (0, 0);
        for (i, g) in m.grams.into_iter().enumerate() {
            if kept.len() == MAX_GRAMS {
                break;
            }
            if dropped.contains(&g) {
                continue;
            }
            question += usize::from(i < m.question);
            if scaffold.contains(&g) {
                kept.push(g | SCAFFOLD);
            } else {
                own += 1;
                kept.push(g);
            }
        }
        if kept.len() < min_grams {
            stats.unmatchable += 1;
        }
        stats.all_scaffold += usize::from(own == 0 && !kept.is_empty());
        table.items.push(Item {
            task,
            id: cut(&r.id),
            words: m.words.min(u16::MAX as usize) as u16,
            question: question as u16,
            grams: kept,
        });
    }
    table.tasks = tasks;
    (table, stats)
}

/// In how many distinct items each gram is, an item's text counted once
/// (a second item with the same text is a duplicate, counted in `stats`).
fn items_per_gram(made: &[Made], stats: &mut BuildStats) -> FxHashMap<u64, u32> {
    let mut seen_text: FxHashSet<u64> = FxHashSet::default();
    let mut in_items: FxHashMap<u64, u32> = FxHashMap::default();
    let mut distinct = Vec::new();
    for m in made {
        let text = m
            .grams
            .iter()
            .fold(m.words as u64, |h, &g| h.rotate_left(5) ^ g);
        if !seen_text.insert(text) {
            stats.duplicates += 1;
            continue;
        }
        distinct.clear();
        distinct.extend_from_slice(&m.grams);
        distinct.sort_unstable();
        distinct.dedup();
        for &g in &distinct {
            *in_items.entry(g).or_default() += 1;
        }
    }
    in_items
}

fn cut(s: &str) -> String {
    let mut end = s.len().min(MAX_ID);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

#[cfg(test)]
mod tests {
    use super::super::{ItemIndex, ItemRule};
    use super::*;

    fn item(task: &str, id: &str, q: &str, a: &str) -> RawItem {
        RawItem {
            task: task.into(),
            id: id.into(),
            question: q.into(),
            answer: a.into(),
        }
    }

    const N: usize = crate::fingerprints::wordgrams::N;

    fn found(index: &ItemIndex, page: &str) -> Vec<String> {
        let rule = ItemRule {
            min_grams: 3,
            min_share: 0.5,
        };
        let mut w = Vec::new();
        word_hashes(page, &mut String::new(), &mut w);
        let mut hits = Vec::new();
        let mut page_grams = Vec::new();
        grams(&w, N, |_, g| page_grams.push(g));
        index.hits(&page_grams, &mut hits);
        index
            .found(&mut hits, &rule)
            .into_iter()
            .map(|f| index.items[f.item as usize].id.clone())
            .collect()
    }

    #[test]
    fn scaffolding_finds_no_item_and_items_are_found_across_lines() {
        let scaffold = "Read the passage below and answer the question that follows it";
        let mut raw: Vec<RawItem> = (0..6)
            .map(|i| {
                item(
                    "quiz",
                    &format!("s{i}"),
                    &format!("{scaffold} number {i}."),
                    "",
                )
            })
            .collect();
        raw.push(item(
            "trivia",
            "t1",
            "Which river flows through the ancient city of Carcassonne in southern France?",
            "The Aude",
        ));
        raw.push(item("trivia", "t2", "Too short an item.", ""));
        let (table, stats) = build(&raw, N, 4, &FxHashSet::default(), 3);
        assert!(stats.scaffold > 0);
        assert_eq!(stats.unmatchable, 1, "the short one");
        assert_eq!(stats.all_scaffold, 0, "the others have words of their own");
        let index = ItemIndex::new(table, N);
        let page = "Our own long text about travel in the south.\nWhich river flows through\n\
                    the ancient city of\nCarcassonne in southern France? And more of ours.";
        assert_eq!(found(&index, page), ["t1"]);
        // Eight words of it are a quotation, not the item.
        assert!(found(
            &index,
            "we quote: which river flows through the ancient city of carcassonne"
        )
        .is_empty());
        // The scaffolding with another item's words is no item; with its own, it is.
        assert!(found(&index, &format!("{scaffold} number 9.")).is_empty());
        assert_eq!(found(&index, &format!("{scaffold} number 4.")), ["s4"]);
        // The item's words out of order are not the item.
        assert!(found(
            &index,
            "Carcassonne in southern France? the ancient city of. Which river flows through"
        )
        .is_empty());
    }
}
