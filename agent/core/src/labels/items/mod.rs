//! Item sets: labeled sets of short items (benchmark questions and answers,
//! quotations, product descriptions), each kept with its identity.
//!
//! An article-sized set holds hashes of paragraphs and sampled shingles; an
//! item of twenty words leaves too little of either on a page of thousands.
//! An item set holds every word n-gram of each item (`fingerprints::wordgrams`)
//! less the common ones (`build`), and a page contains an item when enough of
//! its grams occur on the page, in the item's order, wherever the page's
//! line and block breaks fall (`ItemIndex::found`).
//!
//! - `read`: evaluation data as items (JSONL, BIG-bench `task.json`, text);
//! - `build`: items to grams, the common grams dropped;
//! - this module: the section of the set file that holds them, and the
//!   in-memory index a page is looked up in.
//!
//! The section (inside the signed bytes, after the SimHashes; all integers
//! little-endian):
//! ```text
//! tasks  u32, then each: u16 length, UTF-8 name
//! items  u32, then each: u32 task, u16 length, UTF-8 id, u16 words,
//!        u16 question grams, u16 grams, then grams × u64 in the item's order
//! ```
//! A gram's lowest bit says it is *scaffolding* (shared by several items of
//! the set, `build`); the other 63 bits are the gram (`gram & !1`).

pub mod build;
pub mod read;

use super::file::{FileError, ItemSection, Reader, SetFile};

/// Most items a set holds (item numbers are `u32`; this bounds a hostile file).
pub const MAX_ITEMS: usize = 50_000_000;
/// Most grams one item keeps: an item past it is a document, not an item
/// (its first grams are kept).
pub const MAX_GRAMS: usize = 4096;
/// The share of an item's question grams a page must hold, in order, when
/// all of them are scaffolding (a puzzle that is a new arrangement of its
/// task's clauses): near the whole question, so a sibling is not it.
pub const WHOLE_SHARE: f64 = 0.95;

/// The bit of a stored gram that marks it scaffolding.
pub const SCAFFOLD: u64 = 1;

/// One item as a set holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Index into `ItemTable::tasks`.
    pub task: u32,
    /// The item's id in its source (a field, an index, a file name).
    pub id: String,
    /// Words of the whole item (question and answer).
    pub words: u16,
    /// How many of `grams` lie wholly in the part that is always there (the
    /// question): a page carrying the question without its answer holds
    /// these.
    pub question: u16,
    /// The item's grams in its order, those common on the web left out;
    /// scaffolding has its lowest bit set ([`SCAFFOLD`]).
    pub grams: Vec<u64>,
}

/// An item set's items and where each comes from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ItemTable {
    /// Tasks (or sources): what a model card names, e.g. `bigbench/snarks`.
    pub tasks: Vec<String>,
    pub items: Vec<Item>,
}

impl ItemTable {
    /// The table as a set file's item section, its grams of `gram_words` words.
    pub fn section(&self, gram_words: usize) -> ItemSection {
        let mut bytes = Vec::new();
        self.encode(&mut bytes);
        ItemSection {
            bytes,
            items: self.items.len() as u64,
            gram_words: gram_words as u8,
        }
    }

    /// The items of `file` (`None` for a set without items).
    pub fn of(file: &SetFile<'_>) -> Result<Option<ItemTable>, FileError> {
        if !file.header.has_items() {
            return Ok(None);
        }
        let table = ItemTable::decode(file.item_bytes())?;
        if table.items.len() as u64 != file.header.items {
            return Err(FileError::Items(
                "the header's item count differs from the section's",
            ));
        }
        Ok(Some(table))
    }

    /// The section's bytes.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.tasks.len() as u32).to_le_bytes());
        for t in &self.tasks {
            push_str(out, t);
        }
        out.extend_from_slice(&(self.items.len() as u32).to_le_bytes());
        for item in &self.items {
            out.extend_from_slice(&item.task.to_le_bytes());
            push_str(out, &item.id);
            out.extend_from_slice(&item.words.to_le_bytes());
            out.extend_from_slice(&item.question.to_le_bytes());
            out.extend_from_slice(&(item.grams.len() as u16).to_le_bytes());
            for g in &item.grams {
                out.extend_from_slice(&g.to_le_bytes());
            }
        }
    }

    /// Reads a section that fills `bytes` exactly.
    pub fn decode(bytes: &[u8]) -> Result<ItemTable, FileError> {
        let mut r = Reader { bytes, at: 0 };
        let tasks = r.u32("item tasks")? as usize;
        // Each task takes at least 2 bytes, each item 12: a count the bytes
        // cannot hold is refused before anything is allocated for it.
        if tasks > bytes.len() / 2 {
            return Err(FileError::Items("more tasks than the section holds"));
        }
        let mut table = ItemTable {
            tasks: (0..tasks)
                .map(|_| r.string("item task"))
                .collect::<Result<_, _>>()?,
            items: Vec::new(),
        };
        let items = r.u32("item count")? as usize;
        if items > MAX_ITEMS || items > (bytes.len() - r.at) / 12 {
            return Err(FileError::Items("more items than the section holds"));
        }
        table.items.reserve_exact(items);
        for _ in 0..items {
            let task = r.u32("item task")?;
            if task as usize >= tasks {
                return Err(FileError::Items(
                    "an item names a task the set does not have",
                ));
            }
            let id = r.string("item id")?;
            let words = r.u16("item words")?;
            let question = r.u16("item question")?;
            let n = r.u16("item grams")? as usize;
            if question as usize > n || n > MAX_GRAMS {
                return Err(FileError::Items("an item's gram counts do not add up"));
            }
            let grams = r.take(n * 8, "item grams")?;
            table.items.push(Item {
                task,
                id,
                words,
                question,
                grams: grams
                    .chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
                    .collect(),
            });
        }
        if r.at != bytes.len() {
            return Err(FileError::Items("bytes after the last item"));
        }
        Ok(table)
    }

    /// Grams over all items.
    pub fn grams(&self) -> usize {
        self.items.iter().map(|i| i.grams.len()).sum()
    }
}

fn push_str(out: &mut Vec<u8>, s: &str) {
    // Names and ids are cut at build (`build::MAX_ID`), so they fit a u16.
    let s = &s.as_bytes()[..s.len().min(u16::MAX as usize)];
    out.extend_from_slice(&(s.len() as u16).to_le_bytes());
    out.extend_from_slice(s);
}

/// The section's own fields, over the file's reader.
trait Fields {
    fn u16(&mut self, what: &'static str) -> Result<u16, FileError>;
    fn u32(&mut self, what: &'static str) -> Result<u32, FileError>;
    fn string(&mut self, what: &'static str) -> Result<String, FileError>;
}

impl Fields for Reader<'_> {
    fn u16(&mut self, what: &'static str) -> Result<u16, FileError> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }
    fn u32(&mut self, what: &'static str) -> Result<u32, FileError> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }
    fn string(&mut self, what: &'static str) -> Result<String, FileError> {
        let n = self.u16(what)? as usize;
        std::str::from_utf8(self.take(n, what)?)
            .map(str::to_string)
            .map_err(|_| FileError::Items("a task or id is not UTF-8"))
    }
}

/// When a page contains an item (`[labels.items]`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ItemRule {
    /// At least this many of the item's grams, in its order ...
    pub min_grams: u32,
    /// ... and at least this share of its question's own grams — those that
    /// are not scaffolding (of all its own grams when its question has none;
    /// at least one in any case).
    pub min_share: f64,
}

/// One gram of a page that is an item's: which item, where on the page,
/// which of the item's grams.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Hit {
    pub item: u32,
    pub at: u32,
    pub ordinal: u16,
    /// The gram is scaffolding: it counts towards `min_grams`, not the share.
    pub scaffold: bool,
}

/// An item a page contains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    pub item: u32,
    /// Its grams found on the page, in its order.
    pub matched: u16,
}

/// Words per gram of a set made by this build; a set records its own.
pub fn default_n() -> usize {
    crate::fingerprints::wordgrams::N
}

/// An item in memory: its grams are in the index's postings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemInfo {
    pub task: u32,
    pub id: String,
    pub words: u16,
    pub grams: u16,
    /// Grams wholly in its question.
    pub question: u16,
    /// Grams that are the item's own (not scaffolding), in all and in its question.
    pub own: u16,
    pub own_question: u16,
}

/// An item set in memory: the items' identities, and every kept gram's
/// postings behind a bit table that answers most page grams (which are no
/// item's) with one memory read.
#[derive(Debug, Default)]
pub struct ItemIndex {
    pub tasks: Vec<String>,
    pub items: Vec<ItemInfo>,
    bits: Vec<u64>,
    /// A gram's word in `bits` is its top `64 - shift` bits.
    shift: u32,
    /// Grams ascending (`gram & !1`), each with its item, ordinal and
    /// whether it is scaffolding (a gram of several items is there once for
    /// each).
    keys: Vec<u64>,
    postings: Vec<(u32, u16, bool)>,
    /// Where each distinct gram's postings start in `keys`: one probe for a
    /// page gram that passes the bit table, where a binary search over
    /// millions of keys would miss the cache at every step.
    starts: rustc_hash::FxHashMap<u64, u32>,
    /// Words per gram.
    pub n: usize,
}

impl ItemIndex {
    pub fn new(table: ItemTable, n: usize) -> ItemIndex {
        let total = table.grams();
        let mut pairs: Vec<(u64, u32, u16, bool)> = Vec::with_capacity(total);
        let mut items = Vec::with_capacity(table.items.len());
        for (i, item) in table.items.into_iter().enumerate() {
            let (mut own, mut own_question) = (0, 0);
            for (ord, &g) in item.grams.iter().enumerate() {
                let scaffold = g & SCAFFOLD != 0;
                pairs.push((g & !SCAFFOLD, i as u32, ord as u16, scaffold));
                if !scaffold {
                    own += 1;
                    own_question += u16::from(ord < item.question as usize);
                }
            }
            items.push(ItemInfo {
                task: item.task,
                id: item.id,
                words: item.words,
                grams: item.grams.len() as u16,
                question: item.question,
                own,
                own_question,
            });
        }
        pairs.sort_unstable();
        // A blocked Bloom filter, 16 bits a gram: a gram sets two bits of one
        // 64-bit word (one memory read to test), and about one page gram in
        // 60 that is no item's passes it to the map.
        let words = (total * 16 / 64).next_power_of_two().max(64);
        let shift = 64 - words.trailing_zeros();
        let mut table_bits = vec![0u64; words];
        for &(g, _, _, _) in &pairs {
            table_bits[(g >> shift) as usize] |= two_bits(g);
        }
        let mut starts = rustc_hash::FxHashMap::default();
        starts.reserve(pairs.len());
        for (i, p) in pairs.iter().enumerate().rev() {
            starts.insert(p.0, i as u32);
        }
        ItemIndex {
            tasks: table.tasks,
            items,
            bits: table_bits,
            shift,
            starts,
            keys: pairs.iter().map(|p| p.0).collect(),
            postings: pairs.iter().map(|p| (p.1, p.2, p.3)).collect(),
            n,
        }
    }

    /// Bytes in memory (the items' ids and the postings).
    pub fn memory(&self) -> usize {
        self.bits.len() * 8
            + self.starts.capacity() * 16
            + self.keys.len() * 8
            + self.postings.len() * std::mem::size_of::<(u32, u16, bool)>()
            + self
                .items
                .iter()
                .map(|i| std::mem::size_of::<ItemInfo>() + i.id.len())
                .sum::<usize>()
    }

    /// Adds the items each of `grams` (a page's, in order: the gram at
    /// index `at` begins at word `at`) belongs to.
    ///
    /// The filter is read at random, about one cache miss a gram on a set of
    /// any size, and the page's grams are all known in advance: each probe
    /// has the line of the gram [`AHEAD`] places on already on its way
    /// (`perf` on WCXB dev: the probe's load was three quarters of the
    /// matching's cycles without it).
    pub fn hits(&self, grams: &[u64], out: &mut Vec<Hit>) {
        if self.keys.is_empty() {
            return;
        }
        for &g in grams.iter().take(AHEAD) {
            crate::prefetch::prefetch_once(&self.bits[self.slot(g)]);
        }
        for (at, &gram) in grams.iter().enumerate() {
            if let Some(&ahead) = grams.get(at + AHEAD) {
                crate::prefetch::prefetch_once(&self.bits[self.slot(ahead)]);
            }
            let gram = gram & !SCAFFOLD;
            let mask = two_bits(gram);
            if self.bits[self.slot(gram)] & mask != mask {
                continue;
            }
            let Some(&start) = self.starts.get(&gram) else {
                continue;
            };
            for i in start as usize..self.keys.len() {
                if self.keys[i] != gram {
                    break;
                }
                let (item, ordinal, scaffold) = self.postings[i];
                out.push(Hit {
                    item,
                    at: at as u32,
                    ordinal,
                    scaffold,
                });
            }
        }
    }

    /// The filter word a gram's two bits are in.
    #[inline]
    fn slot(&self, gram: u64) -> usize {
        (gram >> self.shift) as usize
    }

    /// The items `hits` (a page's, any order) show the page contains, by
    /// `rule`; `hits` is sorted in place. Each item's matched grams are the
    /// longest run of its hits that rises in both the page's order and the
    /// item's (a longest increasing subsequence, O(h log h)): grams of an
    /// item scattered over a page out of order are not the item. The share
    /// is of the item's own grams: a page with another item of the same
    /// template matches the scaffolding, not this item's words.
    pub fn found(&self, hits: &mut [Hit], rule: &ItemRule) -> Vec<Found> {
        hits.sort_unstable();
        let mut out = Vec::new();
        let mut tails: Vec<u16> = Vec::new();
        for group in hits.chunk_by(|a, b| a.item == b.item) {
            if (group.len() as u32) < rule.min_grams {
                continue;
            }
            let item = &self.items[group[0].item as usize];
            let matched = rising(group.iter(), &mut tails);
            // By its own words: enough of the grams no other item has ...
            let base = if item.own_question > 0 {
                item.own_question
            } else {
                item.own
            };
            let by_own = base > 0 && {
                let own = rising(group.iter().filter(|h| !h.scaffold), &mut tails);
                own >= 1 && own as f64 >= rule.min_share * f64::from(base)
            };
            // ... or, where its question is all scaffolding (a puzzle that
            // rearranges its task's clauses; a question asked in several
            // items), by nearly the whole question.
            let whole = if item.question as u32 >= rule.min_grams {
                item.question
            } else {
                item.grams
            };
            let found = by_own
                || (item.own_question == 0 && matched as f64 >= WHOLE_SHARE * f64::from(whole));
            if found && matched >= rule.min_grams {
                out.push(Found {
                    item: group[0].item,
                    matched: matched as u16,
                });
            }
        }
        out
    }

    /// Grams over all items.
    pub fn grams(&self) -> usize {
        self.keys.len()
    }
}

/// How many grams ahead of the one probed the filter's lines are asked
/// for: enough to cover a miss to memory (~80 ns) at a few ns a probe.
const AHEAD: usize = 16;

/// A gram's two bits in its word of the Bloom filter, from bits the word's
/// index does not use (the lowest is the scaffolding flag, left out).
#[inline]
fn two_bits(g: u64) -> u64 {
    1 << ((g >> 1) & 63) | 1 << ((g >> 7) & 63)
}

/// The length of the longest run of `hits` (in page order) whose ordinals
/// rise: patience sorting, `tails` reused.
fn rising<'a>(hits: impl Iterator<Item = &'a Hit>, tails: &mut Vec<u16>) -> u32 {
    tails.clear();
    for h in hits {
        let at = tails.partition_point(|&t| t < h.ordinal);
        if at == tails.len() {
            tails.push(h.ordinal);
        } else {
            tails[at] = h.ordinal;
        }
    }
    tails.len() as u32
}
