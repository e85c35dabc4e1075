//! Words the way datatrove 0.10 splits English text, so that the corpus rule
//! sets decide as datatrove does on the same text.
//!
//! datatrove 0.10 splits English text into words with spaCy's tokenizer
//! (`spacy.blank("en")`) and drops its whitespace tokens: the exceptions
//! (`don't` is `do` and `n't`, `e.g.` one word), then prefixes and suffixes
//! (`"end."` is `"`, `end`, `.`, `"`), then infixes (`well-known` is three
//! words). The rule sets count those punctuation words: the Gopher
//! alphabetic-word ratio has them in its denominator, the n-gram shares in
//! their lengths. [`words`] follows spaCy's algorithm with its exceptions
//! (`rules/spacy_en_exceptions.tsv`); its character classes are written out
//! here, not read from spaCy's regular expressions (its URL pattern too:
//! its structure, not its every case). Every page is split as English text,
//! as FineWeb does (datatrove's filters default to English);
//! docs/corpus-filters.md lists the differences.

mod affixes;

use affixes::{is_icon, prefix_len, split_infixes, suffix_len};
use rustc_hash::FxHashMap;
use std::sync::OnceLock;

/// spaCy's English tokenizer exceptions: a string and the words it is
/// split into (`don't`: `do n't`; `e.g.`, `Mr.` kept whole).
static EXCEPTIONS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../rules/spacy_en_exceptions.tsv"
));

fn exceptions() -> &'static Exceptions {
    static MAP: OnceLock<Exceptions> = OnceLock::new();
    MAP.get_or_init(|| {
        Exceptions::new(
            EXCEPTIONS
                .lines()
                .filter_map(|l| l.split_once('\t'))
                .map(|(orth, words)| (orth, words.split(' ').collect())),
        )
    })
}

/// The exceptions, looked up by string. Nearly every string a page's words
/// are split from is none, and nearly all say so before the map is probed:
/// by their length (none is longer than the longest), then by one bit of a
/// filter that a hash of their length and first eight bytes picks (64 kbit,
/// 1,344 strings set).
struct Exceptions {
    map: FxHashMap<&'static str, Vec<&'static str>>,
    longest: usize,
    filter: Vec<u64>,
}

const FILTER_BITS: u32 = 16;

impl Exceptions {
    fn new(entries: impl Iterator<Item = (&'static str, Vec<&'static str>)>) -> Exceptions {
        let map: FxHashMap<_, _> = entries.collect();
        let mut filter = vec![0u64; 1 << FILTER_BITS >> 6];
        for key in map.keys() {
            let bit = Self::bit(head(key.as_bytes()), key.len());
            filter[bit >> 6] |= 1 << (bit & 63);
        }
        let longest = map.keys().map(|k| k.len()).max().unwrap_or(0);
        Exceptions {
            map,
            longest,
            filter,
        }
    }

    /// The filter's bit for a string of `len` bytes whose first eight (or
    /// fewer, the rest zero) are `head`.
    #[inline(always)]
    fn bit(head: u64, len: usize) -> usize {
        let key = head ^ (len as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - FILTER_BITS)) as usize
    }

    #[inline(always)]
    fn get(&self, s: &str) -> Option<&Vec<&'static str>> {
        self.get_with(s, head(s.as_bytes()))
    }

    /// `get` when the caller has read the string's first eight bytes.
    #[inline(always)]
    fn get_with(&self, s: &str, head: u64) -> Option<&Vec<&'static str>> {
        if s.len() > self.longest {
            return None;
        }
        let bit = Self::bit(head, s.len());
        if self.filter[bit >> 6] & (1 << (bit & 63)) == 0 {
            return None;
        }
        self.map.get(s)
    }
}

/// The first eight bytes of `b` as a little-endian number, zero past its end.
#[inline(always)]
fn head(b: &[u8]) -> u64 {
    match b.first_chunk::<8>() {
        Some(eight) => u64::from_le_bytes(*eight),
        None => b
            .iter()
            .rev()
            .fold(0, |head, &byte| head << 8 | u64::from(byte)),
    }
}

/// The `k` low bytes of eight (0 to 8; all eight past 8).
#[inline(always)]
pub(crate) const fn low_bytes(k: usize) -> u64 {
    match k {
        0 => 0,
        8.. => u64::MAX,
        k => u64::MAX >> (64 - 8 * k),
    }
}

/// Sixteen bytes as two little-endian numbers.
#[inline(always)]
pub(crate) fn split_sixteen(sixteen: &[u8; 16]) -> (u64, u64) {
    let (lo, hi) = sixteen.split_at(8);
    (
        u64::from_le_bytes(lo.try_into().expect("eight bytes")),
        u64::from_le_bytes(hi.try_into().expect("eight bytes")),
    )
}

/// The bytes of `x` (eight, little-endian) that are not ASCII letters:
/// the high bit of each such byte set, the rest clear.
#[inline(always)]
fn not_letters(x: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Upper case to lower; the high bit kept apart so that no byte carries.
    let low = (x | (0x20 * ONES)) & !HIGH;
    let from_a = low + (0x80 - u64::from(b'a')) * ONES;
    let past_z = low + (0x80 - u64::from(b'z') - 1) * ONES;
    let letters = from_a & !past_z & !x & HIGH;
    !letters & HIGH
}

/// The words of a text as datatrove's English `split_into_words` gives
/// them: spaCy's tokenizer (exceptions, then prefixes and suffixes, then
/// infixes), its whitespace tokens left out. See the module documentation.
///
/// One pass over the bytes: a span of letters (of any script), or of
/// letters and the mark that ends a clause, is taken as it is read: no
/// prefix, suffix or infix rule splits letters, so only an exception can
/// (a test holds this for every letter). Most of a page's words are one or
/// the other; any other span goes through spaCy's steps.
pub fn words(text: &str) -> Vec<&str> {
    let exc = exceptions();
    let mut out = Vec::with_capacity(text.len() / 5 + 1);
    let mut suffixes = Vec::new();
    let b = text.as_bytes();
    let ends = |k: usize| k == b.len() || space_at(b, k) > 0;
    let mut i = 0;
    while i < b.len() {
        let w = space_at(b, i);
        if w > 0 {
            i += w;
            continue;
        }
        let start = i;
        // The span's first sixteen bytes: most words are letters that end
        // inside them, read as two numbers.
        if let Some(sixteen) = b[i..].first_chunk::<16>() {
            let (lo, hi) = split_sixteen(sixteen);
            let n = match not_letters(lo) {
                0 => 8 + (not_letters(hi).trailing_zeros() / 8) as usize,
                m => (m.trailing_zeros() / 8) as usize,
            };
            // A string's first eight bytes, zero past its end.
            let first = |k: usize| lo & low_bytes(k);
            if n > 0 && n < 16 && BYTES[sixteen[n] as usize] == SPACE {
                let span = &text[start..start + n];
                match exc.get_with(span, first(n)) {
                    Some(words) => out.extend(words.iter().copied().map(|w| reuse(span, w))),
                    None => out.push(span),
                }
                i = start + n + 1;
                continue;
            }
            // Letters and a mark, all within the sixteen bytes.
            if n > 0 && n < 15 && BYTES[sixteen[n + 1] as usize] == SPACE {
                let (span, letters) = (&text[start..=start + n], &text[start..start + n]);
                if splits_off_after(letters, sixteen[n])
                    && exc.get_with(span, first(n + 1)).is_none()
                    && exc.get_with(letters, first(n)).is_none()
                {
                    out.push(letters);
                    out.push(&text[start + n..=start + n]);
                    i = start + n + 2;
                    continue;
                }
            }
        }
        let j = letters_from(text, i);
        if j > start && ends(j) {
            let span = &text[start..j];
            match exc.get(span) {
                Some(words) => out.extend(words.iter().copied().map(|w| reuse(span, w))),
                None => out.push(span),
            }
            i = j;
            continue;
        }
        if j > start && ends(j + 1) && splits_off_after(&text[start..j], b[j]) {
            let (span, letters) = (&text[start..=j], &text[start..j]);
            if exc.get(span).is_none() && exc.get(letters).is_none() {
                out.push(letters);
                out.push(&text[j..=j]);
                i = j + 1;
                continue;
            }
        }
        let end = span_end(b, j);
        take_span(&text[start..end], j - start, exc, &mut out, &mut suffixes);
        i = end;
    }
    out
}

/// The words of a span that is not letters alone, nor letters and a
/// clause mark; `letters`: its bytes of letters at its start.
#[inline]
fn take_span<'a>(
    span: &'a str,
    letters: usize,
    exc: &Exceptions,
    out: &mut Vec<&'a str>,
    suffixes: &mut Vec<&'a str>,
) {
    // One character, or ASCII digits alone: one word. No rule splits
    // either, and no exception is one but the character itself.
    if span.chars().nth(1).is_none() || span.bytes().all(|x| x.is_ascii_digit()) {
        return out.push(span);
    }
    // Letters and a possessive: the suffix rule splits `'s` off, and no
    // other rule applies to either part (a test holds this for every
    // letter), unless an exception does.
    let (word, suffix) = span.split_at(letters);
    if letters > 0
        && matches!(suffix, "'s" | "'S" | "’s" | "’S")
        && exc.get(span).is_none()
        && exc.get(word).is_none()
    {
        return out.extend([word, suffix]);
    }
    if letters > 0 && hyphenated(span, letters, exc, out) {
        return;
    }
    let from = out.len();
    split_span(span, exc, out, suffixes);
    merge_specials(span, out, from, exc);
}

/// The words of letters joined by single hyphens (`well-known`, `state-of-
/// the-art`): each hyphen is an infix between letters, split off alone
/// (what infixes split is not looked up as an exception), and no exception
/// is letters and hyphens (a test holds this), so none spells a run of
/// them: the letters and the hyphens, unless the span is an exception.
/// `false`, `out` as it was, for any other span.
fn hyphenated<'a>(span: &'a str, letters: usize, exc: &Exceptions, out: &mut Vec<&'a str>) -> bool {
    let b = span.as_bytes();
    if b.get(letters) != Some(&b'-') || exc.get(span).is_some() {
        return false;
    }
    let from = out.len();
    let (mut start, mut end) = (0, letters);
    loop {
        let word = &span[start..end];
        if end == start || end < b.len() && b[end] != b'-' {
            out.truncate(from);
            return false;
        }
        out.push(word);
        if end == b.len() {
            return true;
        }
        out.push(&span[end..=end]);
        start = end + 1;
        end = letters_from(span, start);
    }
}

/// Where the run of letters (`char::is_alphabetic`, of any script, less
/// the few that are symbols to spaCy: Ⓐ) that starts at byte `j` ends.
#[inline(always)]
fn letters_from(text: &str, mut j: usize) -> usize {
    let b = text.as_bytes();
    let two_bytes = two_byte_letters();
    loop {
        while let Some(eight) = b[j..].first_chunk::<8>() {
            let n = (not_letters(u64::from_le_bytes(*eight)).trailing_zeros() / 8) as usize;
            j += n;
            if n < 8 {
                break;
            }
        }
        while j < b.len() && b[j].is_ascii_alphabetic() {
            j += 1;
        }
        if j == b.len() || b[j] < 0x80 {
            return j;
        }
        // U+0080–U+07FF (Latin, Greek, Cyrillic, Hebrew, Arabic...) by a
        // table; the rest decoded.
        if let [lead @ 0xc2..=0xdf, next, ..] = b[j..] {
            let c = usize::from(lead & 0x1f) << 6 | usize::from(next & 0x3f);
            if two_bytes[c >> 6] & (1 << (c & 63)) == 0 {
                return j;
            }
            j += 2;
            continue;
        }
        match text[j..].chars().next() {
            Some(c) if crate::letters::is_alphabetic(c) && !is_icon(c) => j += c.len_utf8(),
            _ => return j,
        }
    }
}

/// Which characters below U+0800 [`letters_from`] takes: a bit each.
fn two_byte_letters() -> &'static [u64; 32] {
    static TABLE: OnceLock<[u64; 32]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [0u64; 32];
        for c in (0..0x800u32).filter_map(char::from_u32) {
            if crate::letters::is_alphabetic(c) && !is_icon(c) {
                t[c as usize >> 6] |= 1 << (c as usize & 63);
            }
        }
        t
    })
}

/// Whether the suffix rules split `mark` off a run of letters before it:
/// `,;:!?` always, a period after a lower-case letter (`end.` is two words,
/// `A.` one).
#[inline]
fn splits_off_after(letters: &str, mark: u8) -> bool {
    match mark {
        b',' | b';' | b':' | b'!' | b'?' => true,
        b'.' => letters.chars().next_back().is_some_and(char::is_lowercase),
        _ => false,
    }
}

/// How many runs between whitespace a text has ([`words`] splits each into
/// one word or more).
pub fn span_count(text: &str) -> usize {
    spans(text).count()
}

/// The runs of a text between whitespace (Python's `str.isspace`), as
/// `text.split(is_space)` without the empty ones.
fn spans(text: &str) -> impl Iterator<Item = &str> {
    let b = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() {
            let w = space_at(b, i);
            if w == 0 {
                break;
            }
            i += w;
        }
        if i >= b.len() {
            return None;
        }
        let start = i;
        i = span_end(b, i);
        Some(&text[start..i])
    })
}

/// The width of the whitespace character at byte `i` (a character
/// boundary), 0 when there is none.
#[inline(always)]
fn space_at(b: &[u8], i: usize) -> usize {
    match BYTES[b[i] as usize] {
        SPACE => 1,
        MAYBE_SPACE => wide_space_at(b, i),
        _ => 0,
    }
}

/// The whitespace beyond ASCII (Python's `str.isspace`, Rust's
/// `char::is_whitespace`) by its UTF-8 bytes: U+0085, U+00A0, U+1680,
/// U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
fn wide_space_at(b: &[u8], i: usize) -> usize {
    let at = |k: usize| b.get(i + k).copied().unwrap_or(0);
    match (b[i], at(1), at(2)) {
        (0xc2, 0x85 | 0xa0, _) => 2,
        (0xe1, 0x9a, 0x80)
        | (0xe2, 0x80, 0x80..=0x8a | 0xa8 | 0xa9 | 0xaf)
        | (0xe2, 0x81, 0x9f)
        | (0xe3, 0x80, 0x80) => 3,
        _ => 0,
    }
}

/// Where the span that goes on at byte `i` (a character boundary) ends: the
/// next whitespace, or the end of the text.
#[inline]
fn span_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match BYTES[b[i] as usize] {
            SPACE => break,
            MAYBE_SPACE if wide_space_at(b, i) > 0 => break,
            _ => i += 1,
        }
    }
    i
}

/// What a byte is to the span finder: an ASCII space (`\t`–`\r`, ` `,
/// `\x1c`–`\x1f`), the lead byte of a character that may be whitespace (C2,
/// E1, E2, E3: see `wide_space_at`), or any other.
const BYTES: [u8; 256] = {
    let mut t = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = match b as u8 {
            b'\t'..=b'\r' | b' ' | 0x1c..=0x1f => SPACE,
            0xc2 | 0xe1 | 0xe2 | 0xe3 => MAYBE_SPACE,
            _ => OTHER,
        };
        b += 1;
    }
    t
};
const OTHER: u8 = 0;
const SPACE: u8 = 1;
const MAYBE_SPACE: u8 = 2;

/// spaCy's `_split_affixes` and `_attach_tokens` for one span.
fn split_span<'a>(
    span: &'a str,
    exc: &Exceptions,
    out: &mut Vec<&'a str>,
    suffixes: &mut Vec<&'a str>,
) {
    let special = |s: &str| exc.get(s);
    if let Some(words) = special(span) {
        return out.extend(words.iter().copied().map(|w| reuse(span, w)));
    }
    split_general(span, exc, out, suffixes);
}

/// `split_span` past the exceptions: spaCy's loop over prefixes and
/// suffixes, then the exception, URL or infixes of what is left.
fn split_general<'a>(
    span: &'a str,
    exc: &Exceptions,
    out: &mut Vec<&'a str>,
    suffixes: &mut Vec<&'a str>,
) {
    let special = |s: &str| exc.get(s);
    let mut s = span;
    suffixes.clear();
    let mut last = usize::MAX;
    while !s.is_empty() && s.len() != last {
        // The span itself was looked up above.
        if s.len() != span.len() && special(s).is_some() {
            break;
        }
        last = s.len();
        let pre = prefix_len(s);
        if pre > 0 && pre < s.len() && special(&s[pre..]).is_some() {
            out.push(&s[..pre]);
            s = &s[pre..];
            break;
        }
        let suf = suffix_len(&s[pre..]);
        let cut = s.len() - suf;
        if suf > 0 && cut > 0 && special(&s[..cut]).is_some() {
            suffixes.push(&s[cut..]);
            s = &s[..cut];
            break;
        }
        if pre > 0 && suf > 0 && pre + suf <= s.len() {
            out.push(&s[..pre]);
            suffixes.push(&s[cut..]);
            s = &s[pre..cut];
        } else if pre > 0 {
            out.push(&s[..pre]);
            s = &s[pre..];
        } else if suf > 0 {
            suffixes.push(&s[cut..]);
            s = &s[..cut];
        }
    }
    if !s.is_empty() {
        if let Some(words) = special(s) {
            out.extend(words.iter().copied().map(|w| reuse(s, w)));
        } else if is_url(s) {
            out.push(s);
        } else {
            split_infixes(s, out);
        }
    }
    out.extend(suffixes.drain(..).rev());
}

/// spaCy's URL pattern, its structure: an optional `scheme://` and
/// `user@`, a host ending in a lower-case top-level domain of two letters
/// or more (or an IPv4 address), an optional port, then anything after `/`,
/// `?` or `#`.
fn is_url(s: &str) -> bool {
    if !s.contains('.') {
        return false;
    }
    let mut rest = s;
    if let Some(at) = rest.find("://") {
        let scheme = &rest[..at];
        if scheme.len() < 2
            || !scheme
                .chars()
                .all(|c| c.is_alphanumeric() || "_+-.".contains(c))
        {
            return false;
        }
        rest = &rest[at + 3..];
    }
    let host_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (mut host, _path) = rest.split_at(host_end);
    if let Some(at) = host.rfind('@') {
        host = &host[at + 1..];
    }
    if let Some((h, port)) = host.rsplit_once(':') {
        if !(2..=5).contains(&port.len()) || !port.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
        host = h;
    }
    let labels: Vec<&str> = host.split('.').collect();
    if labels.len() == 4
        && labels
            .iter()
            .all(|l| (1..=3).contains(&l.len()) && l.bytes().all(|b| b.is_ascii_digit()))
    {
        return true;
    }
    // Names of any case; the top-level domain in lower case ("end.Next" is two words, "IRS.gov" a URL).
    let label_ok = |l: &&str| {
        !l.is_empty()
            && l.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c as u32 >= 0xa1)
            && !l.ends_with('-')
    };
    let Some((tld, names)) = labels.split_last() else {
        return false;
    };
    !names.is_empty()
        && names.iter().all(label_ok)
        && (2..=63).contains(&tld.chars().count())
        && tld
            .chars()
            .all(|c| c.is_ascii_lowercase() || c as u32 >= 0xa1)
}

/// spaCy's special cases matched across the tokens affixes made (an
/// emoticon `):` split into `)` and `:`): of a span's words, the longest
/// run that spells an exception is merged back, left to right.
fn merge_specials<'a>(span: &'a str, words: &mut Vec<&'a str>, from: usize, exc: &Exceptions) {
    if words.len() - from < 2 || span.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return;
    }
    // Built only once a run merges: most spans have none.
    let mut merged: Option<Vec<&'a str>> = None;
    let mut i = from;
    while i < words.len() {
        let mut done = false;
        // Only words that are slices of the span, in order, can be spelled together.
        for j in (i + 2..=(i + 4).min(words.len())).rev() {
            let (first, last) = (words[i], words[j - 1]);
            let (Some(a), Some(l)) = (offset_in(span, first), offset_in(span, last)) else {
                continue;
            };
            let b = l + last.len();
            // The whole span was looked up first (`split_span`): were it an
            // exception, its words are those already.
            if a >= b || (a == 0 && b == span.len()) {
                continue;
            }
            let joined = &span[a..b];
            if let Some(parts) = exc.get(joined) {
                let m = merged.get_or_insert_with(|| words[from..i].to_vec());
                m.extend(parts.iter().copied().map(|w| reuse(joined, w)));
                i = j;
                done = true;
                break;
            }
        }
        if !done {
            if let Some(m) = merged.as_mut() {
                m.push(words[i]);
            }
            i += 1;
        }
    }
    if let Some(m) = merged {
        words.truncate(from);
        words.extend(m);
    }
}

/// Where `word` begins in `text` when it is a slice of it: the words
/// [`words`] gives are, but for an exception's that its span does not
/// spell (see [`reuse`]).
#[inline]
pub(crate) fn offset_in(text: &str, word: &str) -> Option<usize> {
    let off = (word.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    (off <= text.len() && text.len() - off >= word.len()).then_some(off)
}

/// An exception's word as a slice of the span when it is one (nearly
/// always), so that words borrow the text.
fn reuse<'a>(span: &'a str, word: &'static str) -> &'a str {
    // `span.find(word)`, without its searcher's set-up: spans are short. A
    // match of whole characters begins on a character's boundary.
    let (h, n) = (span.as_bytes(), word.as_bytes());
    match (0..=h.len().saturating_sub(n.len())).find(|&at| h[at..].starts_with(n)) {
        Some(at) if n.len() <= h.len() => &span[at..at + n.len()],
        _ => word,
    }
}

/// Sentences in a line as spaCy's sentencizer counts them: one, and one
/// more at each word that is not punctuation after a sentence's end mark.
pub fn sentences(line: &str) -> usize {
    let mut count = 0;
    let mut seen_end = false;
    for w in words(line) {
        let end = matches!(
            w,
            "." | "!"
                | "?"
                | "。"
                | "！"
                | "？"
                | "．"
                | "‼"
                | "‽"
                | "⁇"
                | "⁈"
                | "⁉"
                | "।"
                | "॥"
        );
        if count == 0 {
            count = 1;
        }
        if seen_end && !end && !w.chars().all(is_punct) {
            count += 1;
            seen_end = false;
        } else if end {
            seen_end = true;
        }
    }
    count
}

/// Unicode punctuation (categories P*), roughly: what spaCy's `is_punct` asks.
fn is_punct(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation()
            && !matches!(c, '$' | '+' | '<' | '=' | '>' | '^' | '`' | '|' | '~');
    }
    matches!(c, '¡' | '§' | '«' | '¶' | '·' | '»' | '¿' | '\u{2010}'..='\u{2027}' | '\u{2030}'..='\u{205e}'
        | '\u{3001}'..='\u{3003}' | '\u{3008}'..='\u{3011}' | '\u{ff01}'..='\u{ff0f}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shortcut_for_a_word_and_its_mark_is_the_general_split() {
        let exc = exceptions();
        let mut next = crate::fingerprints::xorshift(7);
        let letters = b"aAbBzZeEgGmMrRsStTxXnN";
        let marks = b",;:!?.";
        let mut spans: Vec<String> = exc.map.keys().map(|k| k.to_string()).collect();
        spans.extend(
            exc.map
                .keys()
                .map(|k| format!("{}.", k.trim_end_matches('.'))),
        );
        for _ in 0..20_000 {
            let len = 1 + (next() % 6) as usize;
            let mut w: String = (0..len)
                .map(|_| char::from(letters[(next() % letters.len() as u64) as usize]))
                .collect();
            w.push(char::from(marks[(next() % marks.len() as u64) as usize]));
            spans.push(w);
        }
        for span in spans.iter().filter(|s| !s.contains(char::is_whitespace)) {
            assert_eq!(words(span), words_span_by_span(span), "{span:?}");
        }
    }

    /// `words` without its one-pass shortcuts: every span through spaCy's steps.
    fn words_span_by_span(text: &str) -> Vec<&str> {
        let exc = exceptions();
        let (mut out, mut suffixes) = (Vec::new(), Vec::new());
        for span in spans(text) {
            let from = out.len();
            split_span(span, exc, &mut out, &mut suffixes);
            merge_specials(span, &mut out, from, exc);
        }
        out
    }

    #[test]
    fn the_one_pass_reading_is_spacys_span_by_span() {
        let exc = exceptions();
        let mut next = crate::fingerprints::xorshift(11);
        let mut pieces: Vec<String> = exc.map.keys().map(|k| k.to_string()).collect();
        pieces.extend(
            [
                "word",
                "End",
                "x",
                "éa",
                "a\u{301}",
                "3.5",
                "1990",
                "company’s",
                "Zoë's",
                "7",
                "–",
                "&",
                "well-known",
                "(it)",
                "U.S.",
                "a.",
                "A.",
            ]
            .map(String::from),
        );
        let marks = [",", ";", ":", "!", "?", ".", "'", "\"", ")", "", "", ""];
        let spaces = [
            " ", " ", "  ", "\n", "\t", "\u{a0}", "\u{2003}", "\u{3000}", "\u{85}", "\u{e9}",
        ];
        for _ in 0..3_000 {
            let mut text = String::new();
            for _ in 0..(next() % 12) {
                text.push_str(&pieces[(next() % pieces.len() as u64) as usize]);
                text.push_str(marks[(next() % marks.len() as u64) as usize]);
                text.push_str(spaces[(next() % spaces.len() as u64) as usize]);
            }
            assert_eq!(words(&text), words_span_by_span(&text), "{text:?}");
        }
    }

    #[test]
    fn letters_joined_by_hyphens_are_split_as_spacy_splits_them() {
        // No exception is letters and hyphens: none spells a run of a
        // hyphenated span's words.
        for key in exceptions().map.keys() {
            assert!(
                !key.contains('-') || !key.chars().all(|c| c == '-' || c.is_alphabetic()),
                "{key}"
            );
        }
        let mut next = crate::fingerprints::xorshift(5);
        let exc = exceptions();
        let mut pieces: Vec<&str> = exc.map.keys().copied().collect();
        pieces.extend([
            "well", "known", "état", "Ⓐ", "x", "E", "a\u{301}", "3", "", "'s", "’", "é", ".",
        ]);
        let joins = ["-", "-", "-", "--", "—", "–", "-.", "_"];
        for _ in 0..20_000 {
            let mut span = String::new();
            for k in 0..1 + next() % 4 {
                if k > 0 {
                    span.push_str(joins[(next() % joins.len() as u64) as usize]);
                }
                span.push_str(pieces[(next() % pieces.len() as u64) as usize]);
            }
            let text = format!("{span} {span}-x x-{span}");
            assert_eq!(words(&text), words_span_by_span(&text), "{text:?}");
        }
        for c in (0..0x11_0000u32).filter_map(char::from_u32) {
            let text = format!("a-{c} {c}-a-{c}{c} ab-{c}-cd");
            assert_eq!(words(&text), words_span_by_span(&text), "{c:?}");
        }
    }

    #[test]
    fn eight_bytes_at_once_are_letters_where_each_is() {
        for c in 0..=255u8 {
            for at in 0..8 {
                let mut eight = *b"abcdWXYZ";
                eight[at] = c;
                let expect = if c.is_ascii_alphabetic() {
                    0
                } else {
                    0x80 << (8 * at)
                };
                assert_eq!(
                    not_letters(u64::from_le_bytes(eight)),
                    expect,
                    "{c} at {at}"
                );
            }
        }
    }

    #[test]
    fn no_rule_but_an_exception_splits_letters_of_any_script() {
        for c in (0..0x11_0000u32)
            .filter_map(char::from_u32)
            .filter(|c| c.is_alphabetic())
        {
            for text in [
                format!("{c}"),
                format!("a{c} {c}a"),
                format!("{c}{c}. É{c}. {c}A."),
                format!("{c}, x{c}; {c}:"),
                format!("{c}! {c}? {c}-"),
                format!("{c}'s {c}{c}’S a{c}’s"),
            ] {
                assert_eq!(words(&text), words_span_by_span(&text), "{:?}", c);
            }
        }
    }

    #[test]
    fn a_character_alone_or_digits_alone_are_one_word_as_spacy_splits_them() {
        for c in (0..0x11_0000u32).filter_map(char::from_u32) {
            let text = format!("{c} x {c}");
            assert_eq!(words(&text), words_span_by_span(&text), "{c:?}");
        }
        for digits in ["0", "7", "42", "1990", "000123", "31415926535897932384"] {
            let text = format!("{digits} {digits}");
            assert_eq!(words(&text), words_span_by_span(&text), "{digits}");
        }
    }

    #[test]
    fn spans_are_the_runs_between_every_kind_of_space() {
        for c in (0..0x3100u32)
            .chain(0xfeff..0xff10)
            .filter_map(char::from_u32)
        {
            let text = format!("a{c}b {c}{c}c\u{a0}é{c}");
            let runs: Vec<&str> = text
                .split(crate::filters::words::is_space)
                .filter(|r| !r.is_empty())
                .collect();
            assert_eq!(spans(&text).collect::<Vec<_>>(), runs, "{c:?}");
        }
    }

    #[test]
    fn punctuation_is_split_off_as_spacy_does() {
        assert_eq!(
            words("He said \"don't go.\" then (twice), at 10:30; it's 1,000$! e.g. Mr. Smith. USA. x."),
            ["He", "said", "\"", "do", "n't", "go", ".", "\"", "then", "(", "twice", ")", ",", "at", "10:30", ";",
             "it", "'s", "1,000", "$", "!", "e.g.", "Mr.", "Smith", ".", "USA", ".", "x."]
        );
        assert_eq!(
            words("well-known 3.5 3. end.Next a,b x:y 10km 5% #tag wait... — “q” can't I'm"),
            [
                "well", "-", "known", "3.5", "3", ".", "end", ".", "Next", "a", ",", "b", "x", ":",
                "y", "10", "km", "5", "%", "#", "tag", "wait", "...", "—", "“", "q", "”", "ca",
                "n't", "I", "'m"
            ]
        );
        assert_eq!(sentences("One. Two! Three? Mr. Four."), 4);
    }
}
