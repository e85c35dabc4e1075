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

use super::words::is_space;
use affixes::{prefix_len, split_infixes, suffix_len};
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
/// are split from is none, and most say so before they are hashed: by
/// their length (none is longer than the longest) or by their first and
/// last bytes (a bit for each pair that begins and ends one).
struct Exceptions {
    map: FxHashMap<&'static str, Vec<&'static str>>,
    longest: usize,
    ends: Vec<u64>,
}

impl Exceptions {
    fn new(entries: impl Iterator<Item = (&'static str, Vec<&'static str>)>) -> Exceptions {
        let map: FxHashMap<_, _> = entries.collect();
        let mut ends = vec![0u64; 1 << 16 >> 6];
        for key in map.keys() {
            let pair = Self::pair(key);
            ends[pair >> 6] |= 1 << (pair & 63);
        }
        let longest = map.keys().map(|k| k.len()).max().unwrap_or(0);
        Exceptions { map, longest, ends }
    }

    /// The first and last bytes of `s`, as one index.
    fn pair(s: &str) -> usize {
        let b = s.as_bytes();
        match (b.first(), b.last()) {
            (Some(&f), Some(&l)) => usize::from(f) << 8 | usize::from(l),
            _ => 0,
        }
    }

    #[inline]
    fn get(&self, s: &str) -> Option<&Vec<&'static str>> {
        let pair = Self::pair(s);
        if s.len() > self.longest || self.ends[pair >> 6] & (1 << (pair & 63)) == 0 {
            return None;
        }
        self.map.get(s)
    }
}

/// The words of a text as datatrove's English `split_into_words` gives
/// them: spaCy's tokenizer (exceptions, then prefixes and suffixes, then
/// infixes), its whitespace tokens left out. See the module documentation.
pub fn words(text: &str) -> Vec<&str> {
    let exc = exceptions();
    let mut out = Vec::with_capacity(text.len() / 5 + 1);
    let mut suffixes = Vec::new();
    for span in spans(text) {
        let from = out.len();
        split_span(span, exc, &mut out, &mut suffixes);
        merge_specials(span, &mut out, from, exc);
    }
    out
}

/// How many runs between whitespace a text has ([`words`] splits each into
/// one word or more).
pub fn span_count(text: &str) -> usize {
    spans(text).count()
}

/// The runs of a text between whitespace (Python's `str.isspace`), as
/// `text.split(is_space)` without the empty ones: ASCII bytes are tested
/// as bytes, the rest decoded only where they are.
fn spans(text: &str) -> impl Iterator<Item = &str> {
    let b = text.as_bytes();
    let mut i = 0;
    // The width of the whitespace character at `i`, 0 when there is none.
    let space_at = move |i: usize| -> usize {
        match SPACE_BYTES[b[i] as usize] {
            NOT_SPACE => return 0,
            SPACE => return 1,
            _ => {}
        }
        let ch = text[i..].chars().next().unwrap_or(' ');
        if is_space(ch) {
            ch.len_utf8()
        } else {
            0
        }
    };
    std::iter::from_fn(move || {
        while i < b.len() {
            let w = space_at(i);
            if w == 0 {
                break;
            }
            i += w;
        }
        if i >= b.len() {
            return None;
        }
        let start = i;
        while i < b.len() {
            match SPACE_BYTES[b[i] as usize] {
                NOT_SPACE => i += 1,
                SPACE => break,
                _ if space_at(i) > 0 => break,
                _ => i += 1,
            }
        }
        Some(&text[start..i])
    })
}

/// What a byte says of whitespace: none, an ASCII space (`\t`–`\r`, ` `,
/// `\x1c`–`\x1f`), or the lead byte of a character that may be one: only
/// U+0085, U+00A0 (C2), U+1680 (E1), U+2000–U+205F (E2) and U+3000 (E3)
/// are spaces beyond ASCII.
const SPACE_BYTES: [u8; 256] = {
    let mut t = [NOT_SPACE; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = match b as u8 {
            b'\t'..=b'\r' | b' ' | 0x1c..=0x1f => SPACE,
            0xc2 | 0xe1 | 0xe2 | 0xe3 => MAYBE_SPACE,
            _ => NOT_SPACE,
        };
        b += 1;
    }
    t
};
const NOT_SPACE: u8 = 0;
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
    // Most words are letters alone: no affix, no infix, no URL can split them.
    if span.bytes().all(|b| b.is_ascii_alphabetic()) {
        return out.push(span);
    }
    // Most others are letters and the mark that ends a clause (`word,`
    // `end.`): the suffix rules split the mark off, and the letters are
    // split no further unless they are an exception (`split_general`'s
    // steps for such a span, taken at once; a test holds them equal).
    if let Some(letters) = letters_then_mark(span) {
        if special(letters).is_none() {
            out.push(letters);
            return out.push(&span[letters.len()..]);
        }
    }
    split_general(span, exc, out, suffixes);
}

/// The letters of a span that is ASCII letters and one mark the suffix
/// rules split off after them: `,;:!?`, or a period after a lower-case
/// letter (`A.` is one word to spaCy, `end.` two).
fn letters_then_mark(span: &str) -> Option<&str> {
    let (&last, letters) = span.as_bytes().split_last()?;
    let before = *letters.last()?;
    let mark = matches!(last, b',' | b';' | b':' | b'!' | b'?')
        || (last == b'.' && before.is_ascii_lowercase());
    (mark && letters.iter().all(u8::is_ascii_alphabetic)).then(|| &span[..letters.len()])
}

/// `split_span` past its shortcuts: spaCy's loop over prefixes and
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
    let base = span.as_ptr() as usize;
    let offset = |w: &str| w.as_ptr() as usize - base;
    // Built only once a run merges: most spans have none.
    let mut merged: Option<Vec<&'a str>> = None;
    let mut i = from;
    while i < words.len() {
        let mut done = false;
        // Only words that are slices of the span, in order, can be spelled together.
        for j in (i + 2..=(i + 4).min(words.len())).rev() {
            let (first, last) = (words[i], words[j - 1]);
            let inside =
                |w: &str| (w.as_ptr() as usize) >= base && offset(w) + w.len() <= span.len();
            if !inside(first) || !inside(last) {
                continue;
            }
            let (a, b) = (offset(first), offset(last) + last.len());
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

/// An exception's word as a slice of the span when it is one (nearly
/// always), so that words borrow the text.
fn reuse<'a>(span: &'a str, word: &'static str) -> &'a str {
    match span.find(word) {
        Some(at) => &span[at..at + word.len()],
        None => word,
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
            let (mut fast, mut general, mut sfx) = (Vec::new(), Vec::new(), Vec::new());
            split_span(span, exc, &mut fast, &mut sfx);
            if exc.get(span).is_none() {
                split_general(span, exc, &mut general, &mut sfx);
            } else {
                general = fast.clone();
            }
            assert_eq!(fast, general, "{span:?}");
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
                .split(super::is_space)
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
