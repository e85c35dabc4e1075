//! A page's words, read once, and the items of item sets found in them.
//!
//! Items are looked for in every word of the page's visible and hidden
//! text; the content's shingles are made of the same words wherever the
//! two readings agree (`wordgrams::PageWords::within`). One reading of the words (`wordgrams::PageWords`)
//! serves both, so an item set costs a page its grams and their look-ups,
//! not a second reading of the content.

use super::Pipeline;
use crate::analyse::Analysis;
use crate::extract::Content;
use crate::fingerprints::wordgrams::{self, PageWords};
use crate::labels::items::Hit;
use crate::labels::LabeledSets;
use crate::verdict::{ItemMatch, Kind, Reason, Verdict};

/// What a page's words and items are worked in, kept by each thread from
/// page to page: a page's words and grams run to tens of thousands, and
/// allocating them afresh was a fifth of what matching items cost.
#[derive(Default)]
pub(super) struct Scratch {
    words: PageWords,
    /// `words` holds this page's (read at most once a page).
    read: bool,
    grams: Vec<u64>,
    hits: Vec<Hit>,
}

impl Scratch {
    /// Reads the page's words on first use; `false` when no item set is
    /// loaded (nothing needs the whole page's words then).
    fn read_words(&mut self, labels: &LabeledSets, analysis: &Analysis) -> bool {
        if !labels.carry_items() {
            return false;
        }
        if !self.read {
            self.words.read(&analysis.text, &analysis.hidden_text);
            self.read = true;
        }
        true
    }

    /// A huge page's buffers are not kept for the thread's next pages.
    fn shrink(&mut self) {
        const KEEP: usize = 1 << 18;
        self.words.shrink(KEEP);
        if self.grams.capacity() > KEEP {
            *self = Scratch::default();
        }
    }
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// Runs `judge` with this thread's scratch, emptied for the page.
pub(super) fn with_scratch<R>(judge: impl FnOnce(&mut Scratch) -> R) -> R {
    SCRATCH.with(|scratch| {
        let mut scratch = scratch.borrow_mut();
        scratch.read = false;
        let out = judge(&mut scratch);
        scratch.shrink();
        out
    })
}

/// A reader of the content's shingle words for `chunks::chunk_words`: the
/// page's words where they are the paragraph's (read once for its items),
/// else the fast reading of the normalised paragraph where it gives the
/// same words, else the shingler's own.
pub(super) fn content_words<'a>(
    scratch: &'a mut Scratch,
    labels: &LabeledSets,
    analysis: &'a Analysis,
    content: &'a Content,
) -> impl FnMut(usize, &str, &mut Vec<u64>) -> bool + 'a {
    let page = scratch
        .read_words(labels, analysis)
        .then_some(&scratch.words);
    move |i, normalised, out| {
        let known = page
            .zip(content.paragraphs.get(i))
            .and_then(|(page, &(s, e))| page.within(&analysis.text, s as usize, e as usize));
        match known {
            Some(hashes) => {
                out.extend_from_slice(hashes);
                true
            }
            None => wordgrams::shingle_words(normalised, out),
        }
    }
}

impl Pipeline {
    /// The items of item sets the page contains, looked for in its whole
    /// visible text — boilerplate, lists and tables too — and then in the
    /// text of its hidden elements: a benchmark item may be set out anywhere
    /// (a quiz's collapsed answer), and its words run on across the page's
    /// line and block breaks (`fingerprints::wordgrams`).
    pub(super) fn match_items(
        &self,
        labels: &LabeledSets,
        analysis: &Analysis,
        v: &mut Verdict,
        scratch: &mut Scratch,
    ) {
        if !scratch.read_words(labels, analysis) {
            return;
        }
        let Scratch {
            words, grams, hits, ..
        } = scratch;
        let words = &words.hashes;
        let items = &self.settings.labels.items;
        let mut found = Vec::new();
        // Sets made with the same words per gram (all, as a rule) share them.
        let (rule, mut grams_n) = (items.rule(), 0);
        for set in labels.sets() {
            let Some(index) = &set.items else { continue };
            if grams_n != index.n {
                grams.clear();
                wordgrams::grams(words, index.n, |_, g| grams.push(g));
                grams_n = index.n;
            }
            hits.clear();
            index.hits(grams, hits);
            for f in index.found(hits, &rule) {
                let item = &index.items[f.item as usize];
                let share = f64::from(f.matched) / f64::from(item.grams.max(1));
                found.push((share.min(1.0), set, f.item));
            }
        }
        v.items_found = found.len() as u32;
        // The most complete first: where a page holds an item and its
        // siblings (items sharing a passage), the item itself leads.
        found.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.2.cmp(&b.2)));
        for (share, set, i) in found.into_iter().take(items.listed) {
            let index = set.items.as_ref().expect("a set with items");
            let item = &index.items[i as usize];
            v.items.push(ItemMatch {
                set: set.name.clone(),
                task: index.tasks[item.task as usize].clone(),
                id: item.id.clone(),
                share: (share * 1000.0).round() / 1000.0,
            });
        }
        if v.items_found > 0 {
            flag_items(v);
        }
    }
}

/// The reason for items found: after the drop reason (a dropped page keeps
/// its verdict; the item is a note) and the copy rules.
fn flag_items(v: &mut Verdict) {
    let first = usize::from(v.verdict == Kind::Drop).min(v.reasons.len());
    let at = first
        + v.reasons[first..]
            .iter()
            .take_while(|r| r.is_copy())
            .count();
    v.reasons.insert(at, Reason::LabeledItem);
    if v.verdict != Kind::Drop {
        v.verdict = Kind::Flag;
    }
}
