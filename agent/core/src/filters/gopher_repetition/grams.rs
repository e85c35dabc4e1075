//! The n-grams of Gopher's repetition rules, counted without a string a
//! gram: the words joined once, sums over the words before each position,
//! and a table of 64-bit hashes.

use crate::filters::words::{self, chars_of_bytes, continuing_count, low_bytes, HIGH};

/// Counts of 64-bit n-gram hashes, by open addressing: a probe is a
/// multiplication and a compare, and the table is emptied from one n to the
/// next by a new generation, not by writing it again (a map with the same
/// keys did five times the work).
#[derive(Default)]
pub(super) struct Counts {
    slots: Vec<Slot>,
    shift: u32,
    generation: u32,
}

/// Empty unless `generation` is the table's.
#[derive(Clone, Copy, Default)]
struct Slot {
    key: u64,
    count: u32,
    first: u32,
    generation: u32,
}

impl Counts {
    /// Empties the table for `n` keys at most (filled half at most), and
    /// lends it to one pass.
    fn reset(&mut self, n: usize) -> Table<'_> {
        let bits = (2 * n).next_power_of_two().max(16).trailing_zeros();
        if self.slots.len() < 1 << bits {
            self.slots.clear();
            self.slots.resize(1 << bits, Slot::default());
            self.shift = 64 - bits;
        }
        // A slot of a generation as old as the new one would be taken for
        // a full one: once in 2^32 resets, the table is emptied.
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.slots.fill(Slot::default());
            self.generation = 1;
        }
        Table {
            mask: self.slots.len() - 1,
            slots: &mut self.slots,
            shift: self.shift,
            generation: self.generation,
        }
    }

    /// Lets go of a table a page far longer than most made large (a thread
    /// keeps 6 MB at most).
    pub(super) fn trim(&mut self) {
        if self.slots.len() > 1 << 18 {
            *self = Counts::default();
        }
    }
}

/// The table during one pass: its shape copied out of `Counts`, so that a
/// probe reads it from registers, not again from memory after each write
/// of a slot.
struct Table<'a> {
    slots: &'a mut [Slot],
    mask: usize,
    shift: u32,
    generation: u32,
}

impl Table<'_> {
    /// The slot of `key`: its own, or the empty one it is to take (its
    /// count 0).
    #[inline(always)]
    fn slot(&mut self, key: u64) -> &mut Slot {
        let mut at = (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize;
        loop {
            let s = self.slots[at];
            if s.generation != self.generation {
                let slot = &mut self.slots[at];
                *slot = Slot {
                    key,
                    count: 0,
                    first: 0,
                    generation: self.generation,
                };
                return slot;
            }
            if s.key == key {
                return &mut self.slots[at];
            }
            at = (at + 1) & self.mask;
        }
    }
}

/// What the n-gram rules read of the words, as sums over the words before
/// each position: an n-gram's characters are then a subtraction, and its
/// words' sequence hash too, not a loop over its words. One array a
/// quantity, read in order (a pass reads only the ones it needs).
#[derive(Default)]
pub(super) struct Hashed {
    /// How many words the arrays hold now: a thread's are kept from one
    /// page to the next, longer than a shorter page needs.
    pub(super) words: usize,
    /// The words' bytes joined without a separator (datatrove's `"".join`
    /// for repeated n-grams: `ab c` and `a bc` are the same 2-gram), `KEY`
    /// bytes of padding after them: a gram is a slice of it.
    pub(super) stream: Vec<u8>,
    /// `bytes[k]`: where word `k` begins in `stream` (the bytes of words
    /// `0..k`).
    pub(super) bytes: Vec<u32>,
    /// `sequence[k]`: a polynomial of words `0..k`'s own hashes. A word has
    /// no space, so two n-grams joined by spaces (datatrove's `" ".join`
    /// for the most frequent n-gram) are equal where their words are.
    pub(super) sequence: Vec<u64>,
    /// `chars[k]`: the characters of words `0..k`.
    pub(super) chars: Vec<u32>,
}

/// The bytes [`Hashed::may_repeat`] keys a position by.
pub(super) const KEY: usize = 16;

/// The word polynomial's base, and the multiplier of the byte hashes.
pub(super) const WORD_BASE: u64 = 0x9e37_79b9_7f4a_7c15;

/// The `k` low bytes of a word's: `LOW_BYTES[k]` of the first eight of
/// sixteen bytes, `LOW_BYTES[k + 16]` of the last eight.
pub(super) const LOW_BYTES: [u64; 33] = {
    let mut t = [0u64; 33];
    let mut k = 0;
    while k <= 16 {
        t[k] = low_bytes(k);
        t[k + 16] = low_bytes(k.saturating_sub(8));
        k += 1;
    }
    t
};

/// A hash of eight-byte pieces: the first the length, the last zero past
/// the bytes' end.
#[inline(always)]
pub(super) fn fold(h: u64, eight: u64) -> u64 {
    let h = (h ^ eight).wrapping_mul(WORD_BASE);
    h ^ h >> 32
}

/// A hash of `b`, any length (a word longer than sixteen bytes).
fn hash_slice(b: &[u8]) -> u64 {
    let mut chunks = b.chunks_exact(8);
    let mut h = b.len() as u64;
    for eight in &mut chunks {
        h = fold(
            h,
            u64::from_le_bytes(eight.try_into().expect("eight bytes")),
        );
    }
    let mut last = [0u8; 8];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    fold(h, u64::from_le_bytes(last))
}

/// Sixteen bytes from where `word` begins, the rest after it any bytes:
/// of the text it lies in when they are there (most words), else a copy.
/// `None` for a word longer.
#[inline(always)]
fn sixteen_of(text: &str, word: &str) -> Option<[u8; 16]> {
    let t = text.as_bytes();
    match words::offset_in(text, word).and_then(|off| t.get(off..off + 16)) {
        Some(s) if word.len() <= 16 => s.try_into().ok(),
        _ if word.len() <= 16 => {
            let mut s = [0u8; 16];
            s[..word.len()].copy_from_slice(word.as_bytes());
            Some(s)
        }
        _ => None,
    }
}

/// Eight bytes of `b` from `at`, little-endian.
#[inline(always)]
pub(super) fn eight_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("eight bytes"))
}

impl Hashed {
    /// One pass over the words, each read as sixteen bytes of the text it
    /// lies in (most words are shorter): copied into the stream by two
    /// moves, hashed and its characters counted from two numbers.
    #[cfg(test)]
    pub(super) fn of(text: &str, words: &[&str]) -> Hashed {
        let mut h = Hashed::default();
        h.fill(text, words);
        h
    }

    /// Reads `words`, the arrays grown where they are too short (never
    /// cleared: what lies past this page's words is not read).
    pub(super) fn fill(&mut self, text: &str, words: &[&str]) {
        let total: usize = words.iter().map(|w| w.len()).sum();
        let n = words.len() + 1;
        self.words = words.len();
        if self.stream.len() < total + KEY {
            self.stream.resize(total + KEY, 0);
        }
        if self.bytes.len() < n {
            self.bytes.resize(n, 0);
            self.sequence.resize(n, 0);
            self.chars.resize(n, 0);
        }
        (self.bytes[0], self.sequence[0], self.chars[0]) = (0, 0, 0);
        let (mut at, mut sequence, mut chars) = (0usize, 0u64, 0u32);
        let sums = self.bytes[1..n]
            .iter_mut()
            .zip(&mut self.sequence[1..n])
            .zip(&mut self.chars[1..n]);
        for (w, ((b_, s_), c_)) in words.iter().zip(sums) {
            let len = w.len();
            let (word, count) = match sixteen_of(text, w) {
                Some(sixteen) => {
                    let (lo, hi) = (eight_at(&sixteen, 0), eight_at(&sixteen, 8));
                    let (lo, hi) = (lo & LOW_BYTES[len], hi & LOW_BYTES[len + 16]);
                    if let Some(to) = self.stream.get_mut(at..at + 16) {
                        to[..8].copy_from_slice(&lo.to_le_bytes());
                        to[8..].copy_from_slice(&hi.to_le_bytes());
                    }
                    // Most words are ASCII: nothing continues a character.
                    let count = match (lo | hi) & HIGH {
                        0 => 0,
                        _ => continuing_count(lo, hi),
                    };
                    (fold(fold(len as u64, lo), hi), count)
                }
                None => {
                    let b = w.as_bytes();
                    self.stream[at..at + len].copy_from_slice(b);
                    (hash_slice(b), len - chars_of_bytes(b))
                }
            };
            at += len;
            sequence = sequence.wrapping_mul(WORD_BASE).wrapping_add(word);
            chars += (len - count) as u32;
            (*b_, *s_, *c_) = (at as u32, sequence, chars);
        }
    }

    /// Lets go of arrays a page far longer than most made long (a thread
    /// keeps 3 MB at most).
    pub(super) fn trim(&mut self) {
        if self.bytes.len() > 1 << 17 || self.stream.len() > 1 << 20 {
            *self = Hashed::default();
        }
    }

    pub(super) fn len(&self) -> usize {
        self.words
    }

    /// The bytes of all words joined.
    pub(super) fn total(&self) -> usize {
        self.bytes[self.len()] as usize
    }

    /// A hash of words `i..i + n` joined without a separator: of their
    /// bytes in the stream, eight at a time (the padding after the stream
    /// lets the last piece be read whole, then cut to the gram).
    #[inline]
    fn joined(&self, i: usize, n: usize) -> u64 {
        let (from, to) = (self.bytes[i] as usize, self.bytes[i + n] as usize);
        let (gram, len) = (&self.stream[from..to + 8], to - from);
        let mut h = len as u64;
        for eight in gram[..len].chunks_exact(8) {
            h = fold(
                h,
                u64::from_le_bytes(eight.try_into().expect("eight bytes")),
            );
        }
        fold(h, eight_at(gram, len & !7) & LOW_BYTES[len & 7])
    }

    /// The hash of words `i..i + n` as a sequence; `shift` is
    /// `WORD_BASE` to the power `n`.
    #[cfg(test)]
    fn sequence(&self, i: usize, n: usize, shift: u64) -> u64 {
        self.sequence[i + n].wrapping_sub(self.sequence[i].wrapping_mul(shift))
    }

    fn gram_chars(&self, i: usize, n: usize) -> usize {
        (self.chars[i + n] - self.chars[i]) as usize
    }

    /// The characters of the longest n-gram's words.
    pub(super) fn longest(&self, n: usize) -> usize {
        let chars = &self.chars[..=self.words];
        let (to, from) = (&chars[n..], &chars[..chars.len() - n]);
        to.iter().zip(from).map(|(t, f)| t - f).max().unwrap_or(0) as usize
    }

    /// The most frequent n-gram's characters (words joined by spaces) times
    /// its count, and the count; of equal counts, the first seen
    /// (`Counter.most_common`).
    pub(super) fn top(&self, n: usize, counts: &mut Counts) -> (usize, u32) {
        let mut table = counts.reset(self.len());
        let shift = WORD_BASE.wrapping_pow(n as u32);
        // The most frequent so far, and of equal counts the first seen:
        // the final one is the most frequent of all.
        let (mut count, mut first) = (0u32, 0u32);
        let sums = &self.sequence[..=self.len()];
        for (i, (&to, &from)) in sums[n..].iter().zip(sums).enumerate() {
            let slot = table.slot(to.wrapping_sub(from.wrapping_mul(shift)));
            if slot.count == 0 {
                slot.first = i as u32;
            }
            slot.count += 1;
            if slot.count > count || (slot.count == count && slot.first < first) {
                (count, first) = (slot.count, slot.first);
            }
        }
        (
            (self.gram_chars(first as usize, n) + n - 1) * count as usize,
            count,
        )
    }

    /// The positions, in order, where an n-gram (n ≥ m) may occur again,
    /// as `position << 1 | keyed`. Two equal n-grams begin with the same
    /// bytes but not always with the same words (`ab c d` and `a bc d` join
    /// the same), so a position is keyed by the first `KEY` bytes of the
    /// words from there on, joined: `keyed` where that key occurs again.
    /// An n-gram shorter than a key may equal another without it, and that
    /// other is short too: of the positions whose m words are shorter than
    /// `KEY` bytes (no n-gram is shorter than its first m words), those
    /// whose first eight bytes occur again among them are in, and those
    /// whose m words are shorter still. [`Hashed::repeated`] passes over the ones
    /// not keyed where their n words are not short.
    pub(super) fn may_repeat(&self, m: usize, counts: &mut Counts) -> Vec<u32> {
        if self.len() < m {
            return Vec::new();
        }
        // A byte a position: `IN`, and `KEYED` beside it where it is keyed.
        let mut flags = vec![0u8; self.len() + 1 - m];
        let mut short = Vec::new();
        let mut table = counts.reset(flags.len());
        for i in 0..flags.len() {
            let gram = (self.bytes[i + m] - self.bytes[i]) as usize;
            if gram < KEY {
                short.push(i as u32);
                flags[i] |= IN * u8::from(gram < 8);
            }
            self.key(i, KEY, &mut table, &mut flags, IN | KEYED);
        }
        let mut table = counts.reset(short.len());
        for i in short {
            self.key(i as usize, 8, &mut table, &mut flags, IN);
        }
        flags
            .iter()
            .enumerate()
            .filter(|(_, &f)| f & IN != 0)
            .map(|(i, &f)| (i as u32) << 1 | u32::from(f >> 1))
            .collect()
    }

    /// Sets `flag` on position `i` and on the first before it whose first
    /// `width` bytes (8 or 16) of the joined words are the same, and `IN`
    /// on a position with fewer bytes left than that.
    #[inline]
    fn key(&self, i: usize, width: usize, table: &mut Table, flags: &mut [u8], flag: u8) {
        let from = self.bytes[i] as usize;
        if from + width > self.total() {
            flags[i] |= IN;
            return;
        }
        let mut key = fold(0, eight_at(&self.stream, from));
        if width == 16 {
            key = fold(key, eight_at(&self.stream, from + 8));
        }
        let slot = table.slot(key);
        slot.count += 1;
        match slot.count {
            1 => slot.first = i as u32,
            2 => {
                flags[slot.first as usize] |= flag;
                flags[i] |= flag;
            }
            _ => flags[i] |= flag,
        }
    }

    /// Characters of the n-grams seen before, a repeat skipping its n words
    /// (datatrove's `find_all_duplicate`), walked over the positions `may`
    /// holds (of [`Hashed::may_repeat`]). Any other holds an n-gram no
    /// other position has: seen before it cannot be, and remembering it
    /// changes no later answer, so the walk steps over it as datatrove's
    /// does, one word on.
    pub(super) fn repeated(&self, n: usize, may: &[u32], counts: &mut Counts) -> usize {
        let mut table = counts.reset(may.len());
        let (mut total, mut next) = (0, 0);
        for &e in may {
            let i = (e >> 1) as usize;
            if i + n > self.len() {
                break;
            }
            let keyed = e & 1 == 1;
            if i < next || !keyed && (self.bytes[i + n] - self.bytes[i]) as usize >= KEY {
                continue;
            }
            let slot = table.slot(self.joined(i, n));
            slot.count += 1;
            if slot.count > 1 {
                total += self.gram_chars(i, n);
                next = i + n;
            }
        }
        total
    }
}

/// [`Hashed::may_repeat`]'s flags of a position.
const IN: u8 = 1;
const KEYED: u8 = 2;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::gopher_repetition::reference::{find_all_duplicate, LONG_WORDS};
    use crate::filters::words::chars;

    #[test]
    fn a_concatenation_is_compared_as_datatrove_joins_it() {
        let h = Hashed::of("", &["ab", "c", "a", "bc"]);
        let shift = WORD_BASE.wrapping_pow(2);
        assert_eq!(h.joined(0, 2), h.joined(2, 2));
        assert_ne!(h.sequence(0, 2, shift), h.sequence(2, 2, shift));
    }

    #[test]
    fn a_gram_hashes_as_its_joined_string_does() {
        let words = [
            "Wir", "lernen", "é", "x", "hier", "und", "x", "hier", "dort", ".", "und", "x",
        ];
        let (long, longer) = ("z".repeat(300), "zé".repeat(9));
        let mut with_long = words.to_vec();
        with_long.insert(3, &long);
        with_long.insert(7, &longer);
        with_long.push(&longer);
        let text = with_long.join(" ");
        // The words as slices of a text, of which the last lie too near its
        // end to be read sixteen bytes at a time, and apart from it.
        let in_text = words::test_words(&text, &with_long, true);
        for words in [&words[..], &with_long, &in_text] {
            let h = Hashed::of(&text, words);
            let grams: Vec<(usize, usize)> = (0..words.len())
                .flat_map(|i| (1..=words.len() - i).map(move |n| (i, n)))
                .collect();
            for &(i, n) in &grams {
                let w = &words[i..i + n];
                let (from, to) = (h.bytes[i] as usize, h.bytes[i + n] as usize);
                assert_eq!(&h.stream[from..to], w.concat().as_bytes());
                assert_eq!(
                    h.gram_chars(i, n),
                    w.iter().map(|w| chars(w)).sum::<usize>()
                );
                // Two grams: the same joined, or as sequences, exactly
                // where their strings are.
                let shift = WORD_BASE.wrapping_pow(n as u32);
                for &(j, m) in &grams {
                    let v = &words[j..j + m];
                    assert_eq!(h.joined(i, n) == h.joined(j, m), w.concat() == v.concat());
                    if m == n {
                        assert_eq!(
                            h.sequence(i, n, shift) == h.sequence(j, m, shift),
                            w.join(" ") == v.join(" "),
                            "{i} {j} {n}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_most_frequent_gram_is_counters_most_common() {
        let mut next = crate::fingerprints::xorshift(3);
        let vocabulary = ["a", "b", "cc", "é", "the", "x"];
        let (mut counts, mut h) = (Counts::default(), Hashed::default());
        for len in (0..300).rev().chain(0..300) {
            let words: Vec<&str> = (0..len)
                .map(|_| vocabulary[(next() % vocabulary.len() as u64) as usize])
                .collect();
            // One set of arrays for every text, as a thread keeps them.
            h.fill("", &words);
            for n in 1..=4.min(len) {
                // Python's Counter(...).most_common(1): the highest count,
                // of equal counts the first inserted.
                let grams: Vec<String> = words.windows(n).map(|w| w.join(" ")).collect();
                let mut order: Vec<&String> = Vec::new();
                let mut seen = std::collections::HashMap::new();
                for g in &grams {
                    *seen.entry(g).or_insert_with(|| {
                        order.push(g);
                        0u32
                    }) += 1;
                }
                let best = order
                    .iter()
                    .max_by(|a, b| seen[*a].cmp(&seen[*b]).then(std::cmp::Ordering::Greater))
                    .unwrap();
                let expect = (chars(best) * seen[*best] as usize, seen[*best]);
                assert_eq!(h.top(n, &mut counts), expect, "{words:?} {n}");
            }
        }
    }

    #[test]
    fn repeated_grams_are_datatroves_over_the_positions_that_may_repeat() {
        let mut next = crate::fingerprints::xorshift(11);
        // "ab c" and "a bc" join the same: datatrove's repeats count them.
        // Short words: most m-grams are shorter than a key; long ones: few.
        let short = ["a", "b", "ab", "bc", "c", "é"];
        let long = LONG_WORDS;
        // One set of arrays and one table for every text, as a thread keeps
        // them: longer texts' words lie past a shorter one's.
        let (mut counts, mut h) = (Counts::default(), Hashed::default());
        for (len, vocabulary) in
            (0..300).flat_map(|len| [(len, short), (len, long), (300 - len, long)])
        {
            let chosen: Vec<&str> = (0..len)
                .map(|_| vocabulary[(next() % vocabulary.len() as u64) as usize])
                .collect();
            let text = chosen.join(" ");
            let words = words::test_words(&text, &chosen, len % 2 == 0);
            h.fill(&text, &words);
            for m in 1..=5 {
                let may = h.may_repeat(m, &mut counts);
                for n in m..=m + 5 {
                    assert_eq!(
                        h.repeated(n, &may, &mut Counts::default()),
                        find_all_duplicate(&words, n),
                        "{words:?} {m} {n}"
                    );
                }
            }
        }
    }

    #[test]
    fn repeats_are_found_where_they_may_be() {
        let text = "a b c d e f a b c d e f g a b c d e";
        let words: Vec<&str> = text.split(' ').collect();
        let h = Hashed::of(text, &words);
        // Every position, keyed.
        let all: Vec<u32> = (0..words.len() as u32).map(|i| i << 1 | 1).collect();
        for n in 1..=6 {
            assert_eq!(
                h.repeated(
                    n,
                    &h.may_repeat(n.min(5), &mut Counts::default()),
                    &mut Counts::default()
                ),
                h.repeated(n, &all, &mut Counts::default()),
                "{n}"
            );
        }
    }
}
