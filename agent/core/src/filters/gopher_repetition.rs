//! Gopher's repetition rules (Rae et al., 2021, Table A1; datatrove's
//! `GopherRepetitionFilter`): a page that repeats its lines, paragraphs or
//! n-grams is dropped. Each share is of the text's characters.

use super::words::{self, chars, chars_of_word_in};
use super::{Failure, NGramShare};
use rustc_hash::FxHashSet;
use serde::Deserialize;

/// `[filters.gopher_repetition]`; a share of 0 turns its check off.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GopherRepetition {
    pub dup_line_frac: f64,
    pub dup_para_frac: f64,
    pub dup_line_char_frac: f64,
    pub dup_para_char_frac: f64,
    /// `[n, share]`: the most frequent n-gram's characters over the text's.
    pub top_n_grams: Vec<NGramShare>,
    /// `[n, share]`: the characters of n-grams seen before, over the text's.
    pub dup_n_grams: Vec<NGramShare>,
}

impl GopherRepetition {
    pub fn check(&self, text: &str, words: &[&str]) -> Result<(), Failure> {
        if text.is_empty() {
            return Err(Failure::new("empty", 0.0, 0.0));
        }
        let length = chars(text) as f64;
        let paragraphs: Vec<&str> = split_paragraphs(words::strip(text));
        let (dups, dup_chars) = duplicates(&paragraphs);
        over(
            "dup_para_frac",
            dups as f64 / paragraphs.len() as f64,
            self.dup_para_frac,
        )?;
        over(
            "dup_para_char_frac",
            dup_chars as f64 / length,
            self.dup_para_char_frac,
        )?;

        let lines = split_runs(text);
        let (dups, dup_chars) = duplicates(&lines);
        over(
            "dup_line_frac",
            dups as f64 / lines.len() as f64,
            self.dup_line_frac,
        )?;
        over(
            "dup_line_char_frac",
            dup_chars as f64 / length,
            self.dup_line_char_frac,
        )?;

        self.check_n_grams(text, words, length)
    }

    /// The top and the repeated n-gram shares.
    fn check_n_grams(&self, text: &str, words: &[&str], length: f64) -> Result<(), Failure> {
        let hashed = Hashed::of(text, words);
        let mut counts = Counts::default();
        // An n-gram occurs no more often than its first m words (m < n): the
        // most frequent m-gram's count bounds every longer n-gram's, and a
        // share that bound keeps under its limit needs no count of its own.
        let mut bound: Option<(usize, u32)> = None;
        for &NGramShare(n, share) in &self.top_n_grams {
            // A share of 0 turns the rule off: nothing to count.
            if words.len() < n || share <= 0.0 {
                continue;
            }
            if let Some((_, count)) = bound.filter(|&(m, _)| m < n) {
                let most = (hashed.longest(n) + n - 1) * count as usize;
                if most as f64 / length <= share {
                    continue;
                }
            }
            let (chars_times_count, count) = hashed.top(n, &mut counts);
            if bound.is_none_or(|(m, _)| n < m) {
                bound = Some((n, count));
            }
            over(
                &format!("top_{n}_gram"),
                chars_times_count as f64 / length,
                share,
            )?;
        }
        // A text with no repeated n-gram has no repeated longer one either.
        let mut none_repeat = false;
        let mut by_n: Vec<_> = self.dup_n_grams.clone();
        by_n.sort_by_key(|g| g.0);
        let may = by_n
            .first()
            .map(|g| hashed.may_repeat(text, words, g.0, &mut counts));
        for NGramShare(n, share) in by_n {
            let may = may.as_deref().unwrap_or_default();
            let repeated = if none_repeat {
                0
            } else {
                hashed.repeated(n, may, &mut counts)
            };
            none_repeat |= repeated == 0;
            over(
                &format!("duplicated_{n}_n_grams"),
                repeated as f64 / length,
                share,
            )?;
        }
        Ok(())
    }
}

/// A share over its limit fails the rule (a limit of 0: the rule is off).
fn over(rule: &str, value: f64, limit: f64) -> Result<(), Failure> {
    if limit > 0.0 && value > limit {
        Err(Failure::new(rule, value, limit))
    } else {
        Ok(())
    }
}

/// Python's `re.split(r"\n{2,}", text)`.
fn split_paragraphs(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut start = 0;
    let mut from = 0;
    while let Some(k) = memchr::memmem::find(&b[from..], b"\n\n") {
        let end = from + k;
        let mut i = end + 2;
        while i < b.len() && b[i] == b'\n' {
            i += 1;
        }
        out.push(&text[start..end]);
        start = i;
        from = i;
    }
    out.push(&text[start..]);
    out
}

/// Python's `re.split("\n+", text)`: empty only at the ends.
fn split_runs(text: &str) -> Vec<&str> {
    let mut out: Vec<&str> = text.split('\n').filter(|l| !l.is_empty()).collect();
    if text.starts_with('\n') || text.is_empty() {
        out.insert(0, "");
    }
    if text.ends_with('\n') {
        out.push("");
    }
    out
}

/// Elements seen before, and their characters (datatrove's `find_duplicates`).
pub(crate) fn duplicates(elements: &[&str]) -> (usize, usize) {
    let mut seen = FxHashSet::default();
    let (mut n, mut chars_) = (0, 0);
    for e in elements {
        if !seen.insert(*e) {
            n += 1;
            chars_ += chars(e);
        }
    }
    (n, chars_)
}

/// What the n-gram rules read of the words, as sums over the words before
/// each position: an n-gram's hash and characters are then a subtraction,
/// not a new string nor a loop over its words. One array a quantity, read
/// in order (a pass reads only the ones it needs).
struct Hashed {
    /// `joined[k]`: the polynomial hash of words `0..k`'s bytes, joined
    /// without a separator (datatrove's `"".join` for repeated n-grams:
    /// `ab c` and `a bc` are the same 2-gram), and their bytes.
    joined: Vec<u64>,
    bytes: Vec<u32>,
    /// `sequence[k]`: a polynomial of words `0..k`'s own hashes. A word has
    /// no space, so two n-grams joined by spaces (datatrove's `" ".join`
    /// for the most frequent n-gram) are equal where their words are.
    sequence: Vec<u64>,
    /// `chars[k]`: the characters of words `0..k`.
    chars: Vec<u32>,
}

/// The bytes [`Hashed::may_repeat`] keys a position by.
const KEY: usize = 16;

/// The byte polynomial's base: odd, so a hash is a bijection of its last
/// byte's.
const BASE: u64 = 0x100_0000_01b3;
/// The word polynomial's base.
const WORD_BASE: u64 = 0x9e37_79b9_7f4a_7c15;

/// `BASE` to the powers 0 to 255: a gram's, looked up (a longer gram's
/// made by squaring).
const POWERS: [u64; 256] = {
    let mut t = [1u64; 256];
    let mut k = 1;
    while k < 256 {
        t[k] = t[k - 1].wrapping_mul(BASE);
        k += 1;
    }
    t
};

/// `BASE` to the power `k`.
#[inline]
fn power(k: u32) -> u64 {
    match POWERS.get(k as usize) {
        Some(&p) => p,
        None => {
            let (mut base, mut k, mut p) = (BASE, k, 1u64);
            while k > 0 {
                if k & 1 == 1 {
                    p = p.wrapping_mul(base);
                }
                base = base.wrapping_mul(base);
                k >>= 1;
            }
            p
        }
    }
}

/// Counts of 64-bit n-gram hashes, by open addressing: a probe is a
/// multiplication and a compare, and the table is emptied from one n to the
/// next by a new generation, not by writing it again (a map with the same
/// keys did five times the work).
#[derive(Default)]
struct Counts {
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
    /// Empties the table for `n` keys at most (filled half at most).
    fn reset(&mut self, n: usize) {
        let bits = (2 * n).next_power_of_two().max(16).trailing_zeros();
        if self.slots.len() < 1 << bits {
            self.slots.clear();
            self.slots.resize(1 << bits, Slot::default());
            self.shift = 64 - bits;
        }
        self.generation += 1;
    }

    /// The slot of `key`: its own, or the empty one it is to take (its
    /// count 0).
    #[inline]
    fn slot(&mut self, key: u64) -> &mut Slot {
        let mask = self.slots.len() - 1;
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
            at = (at + 1) & mask;
        }
    }
}

impl Hashed {
    fn of(text: &str, words: &[&str]) -> Hashed {
        let n = words.len() + 1;
        let mut h = Hashed {
            joined: Vec::with_capacity(n),
            bytes: Vec::with_capacity(n),
            sequence: Vec::with_capacity(n),
            chars: Vec::with_capacity(n),
        };
        let (mut joined, mut bytes, mut sequence, mut chars) = (0u64, 0u32, 0u64, 0u32);
        for w in words {
            h.joined.push(joined);
            h.bytes.push(bytes);
            h.sequence.push(sequence);
            h.chars.push(chars);
            let b = w.as_bytes();
            let x = b.iter().fold(0u64, |x, &b| {
                x.wrapping_mul(BASE).wrapping_add(b as u64 + 1)
            });

            joined = joined.wrapping_mul(power(b.len() as u32)).wrapping_add(x);
            bytes = bytes.wrapping_add(b.len() as u32);
            // The word's length in its hash: `x` alone is one for "a" and
            // for a word with a zero byte before it.
            let word = (x ^ (b.len() as u64).rotate_right(16)).wrapping_mul(WORD_BASE);
            sequence = sequence
                .wrapping_mul(WORD_BASE)
                .wrapping_add(word ^ word >> 29);
            chars += chars_of_word_in(text, w) as u32;
        }
        h.joined.push(joined);
        h.bytes.push(bytes);
        h.sequence.push(sequence);
        h.chars.push(chars);
        h
    }

    fn len(&self) -> usize {
        self.joined.len() - 1
    }

    /// The hash of words `i..i + n` joined without a separator.
    #[inline]
    fn joined(&self, i: usize, n: usize) -> u64 {
        let length = self.bytes[i + n].wrapping_sub(self.bytes[i]);
        self.joined[i + n].wrapping_sub(self.joined[i].wrapping_mul(power(length)))
    }

    /// The hash of words `i..i + n` as a sequence; `shift` is
    /// `WORD_BASE` to the power `n`.
    #[inline]
    fn sequence(&self, i: usize, n: usize, shift: u64) -> u64 {
        self.sequence[i + n].wrapping_sub(self.sequence[i].wrapping_mul(shift))
    }

    fn gram_chars(&self, i: usize, n: usize) -> usize {
        (self.chars[i + n] - self.chars[i]) as usize
    }

    /// The characters of the longest n-gram's words.
    fn longest(&self, n: usize) -> usize {
        let (to, from) = (&self.chars[n..], &self.chars[..self.chars.len() - n]);
        to.iter().zip(from).map(|(t, f)| t - f).max().unwrap_or(0) as usize
    }

    /// The most frequent n-gram's characters (words joined by spaces) times
    /// its count, and the count; of equal counts, the first seen
    /// (`Counter.most_common`).
    fn top(&self, n: usize, counts: &mut Counts) -> (usize, u32) {
        counts.reset(self.len());
        let shift = WORD_BASE.wrapping_pow(n as u32);
        // The most frequent so far, and of equal counts the first seen:
        // the final one is the most frequent of all.
        let (mut count, mut first) = (0u32, 0u32);
        for i in 0..=self.len() - n {
            let slot = counts.slot(self.sequence(i, n, shift));
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
    fn may_repeat(&self, text: &str, words: &[&str], m: usize, counts: &mut Counts) -> Vec<u32> {
        let mut may = Vec::new();
        if self.len() < m {
            return may;
        }
        let stream = joined_bytes(text, words, *self.bytes.last().unwrap_or(&0) as usize);
        let gram = |i: u32| (self.bytes[i as usize + m] - self.bytes[i as usize]) as usize;
        let all = 0..=(self.len() - m) as u32;
        self.repeated_keys(&stream, all.clone(), KEY, counts, 1, &mut may);
        let short: Vec<u32> = all.filter(|&i| gram(i) < KEY).collect();
        may.extend(short.iter().filter(|&&i| gram(i) < 8).map(|&i| i << 1));
        self.repeated_keys(&stream, short.into_iter(), 8, counts, 0, &mut may);
        // A position in twice is kept once, keyed if either was.
        may.sort_unstable();
        may.dedup_by(|later, kept| {
            let same = *later >> 1 == *kept >> 1;
            *kept |= *later & u32::from(same);
            same
        });
        may
    }

    /// Adds to `may` (as `position << 1 | flag`) the positions whose first
    /// `width` bytes (a multiple of eight) of the joined words occur again
    /// among `positions`, and those with fewer bytes left than that.
    fn repeated_keys(
        &self,
        stream: &[u8],
        positions: impl Iterator<Item = u32>,
        width: usize,
        counts: &mut Counts,
        flag: u32,
        may: &mut Vec<u32>,
    ) {
        counts.reset(self.len());
        for i in positions {
            let from = self.bytes[i as usize] as usize;
            let Some(key) = stream.get(from..from + width) else {
                may.push(i << 1);
                continue;
            };
            let key = key.chunks_exact(8).fold(0u64, |h, eight| {
                let eight = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
                (h ^ eight).wrapping_mul(WORD_BASE)
            });
            let slot = counts.slot(key);
            slot.count += 1;
            match slot.count {
                1 => slot.first = i,
                2 => may.extend([slot.first << 1 | flag, i << 1 | flag]),
                _ => may.push(i << 1 | flag),
            }
        }
    }

    /// Characters of the n-grams seen before, a repeat skipping its n words
    /// (datatrove's `find_all_duplicate`), walked over the positions `may`
    /// holds (of [`Hashed::may_repeat`]). Any other holds an n-gram no
    /// other position has: seen before it cannot be, and remembering it
    /// changes no later answer, so the walk steps over it as datatrove's
    /// does, one word on.
    fn repeated(&self, n: usize, may: &[u32], counts: &mut Counts) -> usize {
        counts.reset(may.len());
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
            let slot = counts.slot(self.joined(i, n));
            slot.count += 1;
            if slot.count > 1 {
                total += self.gram_chars(i, n);
                next = i + n;
            }
        }
        total
    }
}

/// The words' bytes joined, each copied as sixteen bytes of the text it is
/// in (the next word's copy writes over the rest): most words are short,
/// and a copy of a known length is two moves, not a call.
fn joined_bytes(text: &str, words: &[&str], total: usize) -> Vec<u8> {
    let t = text.as_bytes();
    let mut out = vec![0u8; total + 16];
    let mut at = 0;
    for w in words {
        let b = w.as_bytes();
        match words::offset_in(text, w).and_then(|off| t.get(off..off + 16)) {
            Some(sixteen) if b.len() <= 16 => out[at..at + 16].copy_from_slice(sixteen),
            _ => out[at..at + b.len()].copy_from_slice(b),
        }
        at += b.len();
    }
    out.truncate(total);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule() -> GopherRepetition {
        toml::from_str(
            "dup_line_frac = 0.3\ndup_para_frac = 0.3\ndup_line_char_frac = 0.2\ndup_para_char_frac = 0.2\n\
             top_n_grams = [[2, 0.2], [3, 0.18], [4, 0.16]]\n\
             dup_n_grams = [[5, 0.15], [6, 0.14], [7, 0.13], [8, 0.12], [9, 0.11], [10, 0.10]]",
        )
        .unwrap()
    }

    #[test]
    fn repeated_lines_and_grams_fail_and_say_by_how_much() {
        let text = "buy now\nbuy now\nbuy now\nsomething else entirely here";
        let f = rule().check(text, &words::words(text)).unwrap_err();
        assert_eq!(f.rule, "dup_line_frac");
        assert!((f.value - 0.5).abs() < 1e-9, "{f:?}");
        let prose = "Rust is a language for systems programming. It gives control over memory without a garbage \
            collector, and its compiler checks that references never outlive the data they point to.";
        assert!(rule().check(prose, &words::words(prose)).is_ok());
    }

    #[test]
    fn a_concatenation_is_compared_as_datatrove_joins_it() {
        let h = Hashed::of("", &["ab", "c", "a", "bc"]);
        let shift = WORD_BASE.wrapping_pow(2);
        assert_eq!(h.joined(0, 2), h.joined(2, 2));
        assert_ne!(h.sequence(0, 2, shift), h.sequence(2, 2, shift));
    }

    #[test]
    fn a_gram_hashes_as_its_joined_string_does() {
        let direct = |s: &str| {
            s.bytes()
                .fold(0u64, |x, b| x.wrapping_mul(BASE).wrapping_add(b as u64 + 1))
        };
        let words = [
            "Wir", "lernen", "é", "x", "hier", "und", "x", "hier", "dort", ".", "und", "x",
        ];
        let long = "z".repeat(300);
        let mut with_long = words.to_vec();
        with_long.insert(3, &long);
        for words in [&words[..], &with_long] {
            let h = Hashed::of("", words);
            let grams: Vec<(usize, usize)> = (0..words.len())
                .flat_map(|i| (1..=words.len() - i).map(move |n| (i, n)))
                .collect();
            for &(i, n) in &grams {
                let w = &words[i..i + n];
                assert_eq!(h.joined(i, n), direct(&w.concat()), "{i} {n}");
                assert_eq!(
                    h.gram_chars(i, n),
                    w.iter().map(|w| chars(w)).sum::<usize>()
                );
                // Two grams as sequences: equal exactly where their words are.
                let shift = WORD_BASE.wrapping_pow(n as u32);
                for &(j, m) in grams.iter().filter(|g| g.1 == n) {
                    assert_eq!(
                        h.sequence(i, n, shift) == h.sequence(j, m, shift),
                        w.join(" ") == words[j..j + m].join(" "),
                        "{i} {j} {n}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_most_frequent_gram_is_counters_most_common() {
        let mut next = crate::fingerprints::xorshift(3);
        let vocabulary = ["a", "b", "cc", "é", "the", "x"];
        let mut counts = Counts::default();
        for len in 0..300 {
            let words: Vec<&str> = (0..len)
                .map(|_| vocabulary[(next() % vocabulary.len() as u64) as usize])
                .collect();
            let h = Hashed::of("", &words);
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

    /// datatrove's `find_all_duplicate`, on strings.
    fn find_all_duplicate(words: &[&str], n: usize) -> usize {
        let (mut unique, mut total, mut i) = (std::collections::HashSet::new(), 0, 0);
        while i + n <= words.len() {
            let gram = words[i..i + n].concat();
            if unique.contains(&gram) {
                total += chars(&gram);
                i += n;
            } else {
                unique.insert(gram);
                i += 1;
            }
        }
        total
    }

    #[test]
    fn repeated_grams_are_datatroves_over_the_positions_that_may_repeat() {
        let mut next = crate::fingerprints::xorshift(11);
        // "ab c" and "a bc" join the same: datatrove's repeats count them.
        // Short words: most m-grams are shorter than a key; long ones: few.
        let short = ["a", "b", "ab", "bc", "c", "é"];
        let long = [
            "alpha",
            "beta",
            "alphabeta",
            "betagamma",
            "gammadeltaepsilonzeta",
            "éé",
        ];
        let mut counts = Counts::default();
        for (len, vocabulary) in (0..300).flat_map(|len| [(len, short), (len, long)]) {
            let chosen: Vec<&str> = (0..len)
                .map(|_| vocabulary[(next() % vocabulary.len() as u64) as usize])
                .collect();
            let text = chosen.join(" ");
            let words = words::test_words(&text, &chosen, len % 2 == 0);
            let h = Hashed::of(&text, &words);
            for m in 1..=5 {
                let may = h.may_repeat(&text, &words, m, &mut counts);
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
                    &h.may_repeat(text, &words, n.min(5), &mut Counts::default()),
                    &mut Counts::default()
                ),
                h.repeated(n, &all, &mut Counts::default()),
                "{n}"
            );
        }
    }
}
