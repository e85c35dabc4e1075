//! The chosen content as blocks: runs of chosen segments of one paragraph.
//!
//! Filters that judge a paragraph as a whole (short link lists, closing
//! sections) walk the chosen segments by block and keep or drop each block
//! entire; this is that walk, once.

use crate::analyse::{Segment, IN_LINK};

/// One block of the chosen segments.
#[derive(Debug, Clone, Copy)]
pub struct ChosenBlock {
    /// Its first and last chosen segments (indices into the segments).
    pub first: usize,
    pub last: usize,
    pub words: u32,
    /// Words inside links.
    pub link_words: u32,
}

impl ChosenBlock {
    /// Link words over words (0 for a block without words).
    pub fn link_share(&self) -> f32 {
        self.link_words as f32 / self.words.max(1) as f32
    }
}

/// Keeps the blocks of `chosen` (segment indices, in order) for which `keep`
/// says so; `keep` sees every block once, in order. Linear in `chosen`.
pub fn retain(
    segments: &[Segment],
    chosen: &mut Vec<usize>,
    mut keep: impl FnMut(&ChosenBlock) -> bool,
) {
    let mut kept = vec![true; chosen.len()];
    let mut start = 0;
    while start < chosen.len() {
        let block = segments[chosen[start]].block;
        let mut end = start;
        let mut b = ChosenBlock {
            first: chosen[start],
            last: chosen[start],
            words: 0,
            link_words: 0,
        };
        while end < chosen.len() && segments[chosen[end]].block == block {
            let s = &segments[chosen[end]];
            b.words += s.words;
            if s.flags & IN_LINK != 0 {
                b.link_words += s.words;
            }
            b.last = chosen[end];
            end += 1;
        }
        if !keep(&b) {
            kept[start..end].iter_mut().for_each(|k| *k = false);
        }
        start = end;
    }
    let mut k = kept.iter();
    chosen.retain(|_| *k.next().unwrap_or(&true));
}
