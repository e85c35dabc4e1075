//! Lines and characters the way datatrove counts them (Python's `str`), so
//! that the corpus rule sets decide as datatrove does on the same text; its
//! words are `tokenizer`'s. Lengths are in characters (`len` in Python), not
//! bytes.

pub(crate) use super::tokenizer::{low_bytes, offset_in, split_sixteen};
pub use super::tokenizer::{sentences, span_count as spans, words};

/// Python's `len` of a string: its characters.
pub fn chars(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

/// The characters of `word` (Python's `len`) when it is a slice of `text`,
/// as most of the tokenizer's words are: its bytes less those that continue
/// a character, a word of eight bytes or fewer read at once from the text
/// (a byte loop costs more than the rest of a word's counting). Any other
/// word is read byte by byte.
#[inline]
pub fn chars_of_word_in(text: &str, word: &str) -> usize {
    let (t, b) = (text.as_bytes(), word.as_bytes());
    match offset_in(text, word).and_then(|off| t.get(off..off + 8)) {
        Some(eight) if b.len() <= 8 => {
            let x = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
            b.len() - (continuing(x & low_bytes(b.len())).wrapping_mul(ONES) >> 56) as usize
        }
        _ => chars_of_bytes(b),
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
pub(crate) const HIGH: u64 = 0x8080_8080_8080_8080;

/// The bytes of `x` (eight, little-endian) that continue a character
/// (`10xxxxxx`: the high bit set, the next clear), one in each such byte's
/// lowest bit: their number is the top byte of a multiplication by `ONES`
/// (`count_ones` is a dozen instructions without the POPCNT the portable
/// build leaves out).
#[inline(always)]
pub(crate) fn continuing(x: u64) -> u64 {
    (x & !(x << 1) & HIGH) >> 7
}

/// How many of two numbers' `continuing` bytes there are.
#[inline(always)]
pub(crate) fn continuing_count(a: u64, b: u64) -> usize {
    ((continuing(a) + continuing(b)).wrapping_mul(ONES) >> 56) as usize
}

/// The characters of whole characters' bytes, read one by one.
pub(crate) fn chars_of_bytes(b: &[u8]) -> usize {
    b.len() - b.iter().filter(|&&x| (x as i8) < -0x40).count()
}

/// Words for tests: `chosen` as slices of `text` (their join by spaces), as
/// the tokenizer gives most words, or apart from it, as it gives an
/// exception's.
#[cfg(test)]
pub(crate) fn test_words<'a>(text: &'a str, chosen: &[&'a str], in_text: bool) -> Vec<&'a str> {
    match in_text {
        true => text.split(' ').filter(|w| !w.is_empty()).collect(),
        false => chosen.to_vec(),
    }
}

/// Python's `str.splitlines()`: lines without their ends, a trailing end
/// starting no line.
pub fn splitlines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        match line_end(rest) {
            None => Some(std::mem::take(&mut rest)),
            Some((at, c)) => {
                let line = &rest[..at];
                let mut next = at + c.len_utf8();
                if c == '\r' && rest[next..].starts_with('\n') {
                    next += 1;
                }
                rest = &rest[next..];
                Some(line)
            }
        }
    })
}

/// The first line end of `text` and where it is: bytes that cannot start
/// one (all but `\n`, `\r`, `\x0b`, `\x0c`, `\x1c`–`\x1e` and the lead
/// bytes of U+0085, U+2028 and U+2029) are passed over without decoding,
/// eight at a time where none of the eight may start one.
fn line_end(text: &str) -> Option<(usize, char)> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let at = match b[i..].first_chunk::<8>() {
            Some(eight) => match may_end_line(u64::from_le_bytes(*eight)) {
                0 => {
                    i += 8;
                    continue;
                }
                found => i + (found.trailing_zeros() / 8) as usize,
            },
            None if MAY_END_LINE[b[i] as usize] => i,
            None => {
                i += 1;
                continue;
            }
        };
        // Told by its bytes, not decoded: a byte that starts none is
        // passed (a continuation byte starts no candidate).
        let next = |k: usize| b.get(at + k).copied();
        let end = match (b[at], next(1), next(2)) {
            (c @ (b'\n' | b'\r' | 0x0b | 0x0c | 0x1c..=0x1e), _, _) => Some(char::from(c)),
            (0xc2, Some(0x85), _) => Some('\u{85}'),
            (0xe2, Some(0x80), Some(0xa8)) => Some('\u{2028}'),
            (0xe2, Some(0x80), Some(0xa9)) => Some('\u{2029}'),
            _ => None,
        };
        if let Some(ch) = end {
            return Some((at, ch));
        }
        i = at + 1;
    }
    None
}

/// Of eight bytes (little-endian), the high bit set at the first that may
/// start a line end: a control character (below 0x20: a superset of the
/// ASCII ends) or the lead byte 0xc2 or 0xe2. Bits above the first may be
/// set where none is (a borrow carries); the first is exact.
#[inline(always)]
fn may_end_line(x: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_at = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let control = x.wrapping_sub(0x20 * ONES) & !x & HIGH;
    control | zero_at(x ^ (0xc2 * ONES)) | zero_at(x ^ (0xe2 * ONES))
}

/// The bytes [`line_end`] decodes at: one table read a byte.
const MAY_END_LINE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = matches!(
            b as u8,
            b'\n' | b'\r' | 0x0b | 0x0c | 0x1c..=0x1e | 0xc2 | 0xe2
        );
        b += 1;
    }
    t
};

/// Python's line ends (`str.splitlines`), as the tests spell them out.
#[cfg(test)]
fn is_line_end(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{b}' | '\u{c}' | '\u{1c}'..='\u{1e}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// The words of a line as Python's `str.split()` makes them: how many, and
/// the characters of the longest. An ASCII line is read a byte at a time.
pub fn split_counts(line: &str) -> (usize, usize) {
    if !line.is_ascii() {
        return line
            .split(is_space)
            .filter(|w| !w.is_empty())
            .fold((0, 0), |(n, longest), w| (n + 1, longest.max(chars(w))));
    }
    let (mut n, mut longest, mut run) = (0, 0, 0);
    for &b in line.as_bytes() {
        if matches!(b, b'\t'..=b'\r' | b' ' | 0x1c..=0x1f) {
            if run > 0 {
                (n, longest, run) = (n + 1, longest.max(run), 0);
            }
        } else {
            run += 1;
        }
    }
    if run > 0 {
        (n, longest) = (n + 1, longest.max(run));
    }
    (n, longest)
}

/// Whether a line has `k` words or more as Python's `str.split()` makes
/// them, read only as far as the `k`-th.
pub fn at_least_words(line: &str, k: usize) -> bool {
    if k == 0 {
        return true;
    }
    if !line.is_ascii() {
        return line
            .split(is_space)
            .filter(|w| !w.is_empty())
            .nth(k - 1)
            .is_some();
    }
    let (mut n, mut in_word) = (0, false);
    for &b in line.as_bytes() {
        let space = matches!(b, b'\t'..=b'\r' | b' ' | 0x1c..=0x1f);
        if !space && !in_word {
            n += 1;
            if n == k {
                return true;
            }
        }
        in_word = !space;
    }
    false
}

/// Python's `str.count(pattern)`: occurrences that do not overlap, found by
/// the memchr crate's vectorised search (std's `matches` is a byte loop).
pub fn count(text: &str, pattern: &str) -> usize {
    match pattern.as_bytes() {
        [] => chars(text) + 1,
        [byte] => memchr::memchr_iter(*byte, text.as_bytes()).count(),
        bytes => memchr::memmem::find_iter(text.as_bytes(), bytes).count(),
    }
}

/// Python's `str.isspace()` for one character.
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\u{1c}'..='\u{1f}')
}

/// Python's `str.strip()`.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// Python's `str.isalpha()` for one character (letters: Unicode L*).
pub fn is_alpha(c: char) -> bool {
    crate::letters::is_alphabetic(c) && !c.is_numeric() && !is_mark(c)
}

fn is_mark(c: char) -> bool {
    // Combining marks are Alphabetic in Unicode but not letters to Python.
    matches!(c, '\u{300}'..='\u{36f}' | '\u{483}'..='\u{489}' | '\u{591}'..='\u{5c7}' | '\u{610}'..='\u{61a}'
        | '\u{64b}'..='\u{65f}' | '\u{900}'..='\u{903}' | '\u{93a}'..='\u{94f}' | '\u{e31}' | '\u{e34}'..='\u{e3a}'
        | '\u{e47}'..='\u{e4e}')
}

/// Whether a word is punctuation alone (every character in datatrove's
/// `PUNCTUATION_SET`).
pub fn is_symbol(word: &str) -> bool {
    word.chars().all(|c| match u32::from(c) {
        a @ 0..=127 => ASCII_SYMBOLS >> a & 1 == 1,
        _ => SYMBOLS.binary_search(&c).is_ok(),
    })
}

/// The ASCII characters of `SYMBOLS` as bits: a test, not a search, for
/// most characters.
pub(crate) const ASCII_SYMBOLS: u128 = {
    let mut bits = 0u128;
    let mut i = 0;
    while i < SYMBOLS.len() {
        if (SYMBOLS[i] as u32) < 128 {
            bits |= 1 << (SYMBOLS[i] as u32);
        }
        i += 1;
    }
    bits
};

/// Whether a line ends in one of datatrove's terminal punctuation marks.
pub fn ends_sentence(line: &str) -> bool {
    line.chars()
        .next_back()
        .is_some_and(|c| TERMINAL.binary_search(&c).is_ok())
}

/// datatrove's `PUNCTUATION_SET` (`PUNCTUATION` and `TERMINAL_PUNCTUATION`, utils/text.py), sorted: a word made of these alone is a symbol.
#[rustfmt::skip]
pub(crate) const SYMBOLS: [char; 281] = [
    '\u{0}', '\u{1}', '\u{2}', '\u{3}', '\u{4}', '\u{5}', '\u{6}', '\u{7}', '\u{8}', '\u{b}',
    '\u{c}', '\u{d}', '\u{e}', '\u{f}', '\u{10}', '\u{11}', '\u{12}', '\u{13}', '\u{14}', '\u{15}',
    '\u{16}', '\u{17}', '\u{18}', '\u{19}', '\u{1a}', '\u{1b}', '\u{1c}', '\u{1d}', '\u{1e}',
    '\u{1f}', '\u{21}', '\u{22}', '\u{23}', '\u{24}', '\u{25}', '\u{26}', '\u{27}', '\u{28}',
    '\u{29}', '\u{2a}', '\u{2b}', '\u{2c}', '\u{2d}', '\u{2e}', '\u{2f}', '\u{3a}', '\u{3b}',
    '\u{3c}', '\u{3d}', '\u{3e}', '\u{3f}', '\u{40}', '\u{5b}', '\u{5c}', '\u{5d}', '\u{5e}',
    '\u{5f}', '\u{60}', '\u{7b}', '\u{7c}', '\u{7d}', '\u{7e}', '\u{7f}', '\u{80}', '\u{81}',
    '\u{82}', '\u{83}', '\u{84}', '\u{85}', '\u{86}', '\u{87}', '\u{88}', '\u{89}', '\u{8a}',
    '\u{8b}', '\u{8c}', '\u{8d}', '\u{8e}', '\u{8f}', '\u{90}', '\u{91}', '\u{92}', '\u{93}',
    '\u{94}', '\u{95}', '\u{96}', '\u{97}', '\u{98}', '\u{99}', '\u{9a}', '\u{9b}', '\u{9c}',
    '\u{9d}', '\u{9e}', '\u{9f}', '\u{ab}', '\u{b4}', '\u{bb}', '\u{589}', '\u{61d}', '\u{61e}',
    '\u{61f}', '\u{6d4}', '\u{700}', '\u{701}', '\u{702}', '\u{7f9}', '\u{837}', '\u{839}',
    '\u{83d}', '\u{83e}', '\u{964}', '\u{965}', '\u{104a}', '\u{104b}', '\u{1362}', '\u{1367}',
    '\u{1368}', '\u{166e}', '\u{1735}', '\u{1736}', '\u{17d4}', '\u{17d5}', '\u{17d6}', '\u{17d9}',
    '\u{17da}', '\u{1803}', '\u{1809}', '\u{1944}', '\u{1945}', '\u{1aa8}', '\u{1aa9}', '\u{1aaa}',
    '\u{1aab}', '\u{1b5a}', '\u{1b5b}', '\u{1b5e}', '\u{1b5f}', '\u{1b7d}', '\u{1b7e}', '\u{1c3b}',
    '\u{1c3c}', '\u{1c7e}', '\u{1c7f}', '\u{2013}', '\u{2014}', '\u{2019}', '\u{201c}', '\u{201d}',
    '\u{201e}', '\u{2026}', '\u{203c}', '\u{203d}', '\u{2047}', '\u{2048}', '\u{2049}', '\u{2236}',
    '\u{2501}', '\u{25ba}', '\u{2e2e}', '\u{2e3c}', '\u{2e53}', '\u{2e54}', '\u{3001}', '\u{3002}',
    '\u{3008}', '\u{3009}', '\u{300a}', '\u{300b}', '\u{300c}', '\u{300d}', '\u{3010}', '\u{3011}',
    '\u{a4ff}', '\u{a60e}', '\u{a60f}', '\u{a6f3}', '\u{a6f7}', '\u{a876}', '\u{a877}', '\u{a8ce}',
    '\u{a8cf}', '\u{a92f}', '\u{a9c8}', '\u{a9c9}', '\u{aa5d}', '\u{aa5e}', '\u{aa5f}', '\u{aaf0}',
    '\u{aaf1}', '\u{abeb}', '\u{fe52}', '\u{fe56}', '\u{fe57}', '\u{ff01}', '\u{ff05}', '\u{ff08}',
    '\u{ff09}', '\u{ff0c}', '\u{ff0e}', '\u{ff11}', '\u{ff1a}', '\u{ff1b}', '\u{ff1f}', '\u{ff5e}',
    '\u{ff61}', '\u{10a56}', '\u{10a57}', '\u{10f55}', '\u{10f56}', '\u{10f57}', '\u{10f58}',
    '\u{10f59}', '\u{10f86}', '\u{10f87}', '\u{10f88}', '\u{10f89}', '\u{11047}', '\u{11048}',
    '\u{110be}', '\u{110bf}', '\u{110c0}', '\u{110c1}', '\u{11141}', '\u{11142}', '\u{11143}',
    '\u{111c5}', '\u{111c6}', '\u{111cd}', '\u{111de}', '\u{111df}', '\u{11238}', '\u{11239}',
    '\u{1123b}', '\u{1123c}', '\u{112a9}', '\u{1144b}', '\u{1144c}', '\u{115c2}', '\u{115c3}',
    '\u{115c9}', '\u{115ca}', '\u{115cb}', '\u{115cc}', '\u{115cd}', '\u{115ce}', '\u{115cf}',
    '\u{115d0}', '\u{115d1}', '\u{115d2}', '\u{115d3}', '\u{115d4}', '\u{115d5}', '\u{115d6}',
    '\u{115d7}', '\u{11641}', '\u{11642}', '\u{1173c}', '\u{1173d}', '\u{1173e}', '\u{11944}',
    '\u{11946}', '\u{11a42}', '\u{11a43}', '\u{11a9b}', '\u{11a9c}', '\u{11c41}', '\u{11c42}',
    '\u{11ef7}', '\u{11ef8}', '\u{11f43}', '\u{11f44}', '\u{16a6e}', '\u{16a6f}', '\u{16af5}',
    '\u{16b37}', '\u{16b38}', '\u{16b44}', '\u{16e98}', '\u{1bc9f}', '\u{1da88}',
];
/// datatrove's `TERMINAL_PUNCTUATION`, sorted: what FineWeb counts as a line's end of sentence.
#[rustfmt::skip]
pub(crate) const TERMINAL: [char; 159] = [
    '\u{21}', '\u{2e}', '\u{3f}', '\u{589}', '\u{61d}', '\u{61e}', '\u{61f}', '\u{6d4}', '\u{700}',
    '\u{701}', '\u{702}', '\u{7f9}', '\u{837}', '\u{839}', '\u{83d}', '\u{83e}', '\u{964}',
    '\u{965}', '\u{104a}', '\u{104b}', '\u{1362}', '\u{1367}', '\u{1368}', '\u{166e}', '\u{1735}',
    '\u{1736}', '\u{17d4}', '\u{17d5}', '\u{17d6}', '\u{17d9}', '\u{17da}', '\u{1803}', '\u{1809}',
    '\u{1944}', '\u{1945}', '\u{1aa8}', '\u{1aa9}', '\u{1aaa}', '\u{1aab}', '\u{1b5a}', '\u{1b5b}',
    '\u{1b5e}', '\u{1b5f}', '\u{1b7d}', '\u{1b7e}', '\u{1c3b}', '\u{1c3c}', '\u{1c7e}', '\u{1c7f}',
    '\u{203c}', '\u{203d}', '\u{2047}', '\u{2048}', '\u{2049}', '\u{2e2e}', '\u{2e3c}', '\u{2e53}',
    '\u{2e54}', '\u{3002}', '\u{a4ff}', '\u{a60e}', '\u{a60f}', '\u{a6f3}', '\u{a6f7}', '\u{a876}',
    '\u{a877}', '\u{a8ce}', '\u{a8cf}', '\u{a92f}', '\u{a9c8}', '\u{a9c9}', '\u{aa5d}', '\u{aa5e}',
    '\u{aa5f}', '\u{aaf0}', '\u{aaf1}', '\u{abeb}', '\u{fe52}', '\u{fe56}', '\u{fe57}', '\u{ff01}',
    '\u{ff0e}', '\u{ff1f}', '\u{ff61}', '\u{10a56}', '\u{10a57}', '\u{10f55}', '\u{10f56}',
    '\u{10f57}', '\u{10f58}', '\u{10f59}', '\u{10f86}', '\u{10f87}', '\u{10f88}', '\u{10f89}',
    '\u{11047}', '\u{11048}', '\u{110be}', '\u{110bf}', '\u{110c0}', '\u{110c1}', '\u{11141}',
    '\u{11142}', '\u{11143}', '\u{111c5}', '\u{111c6}', '\u{111cd}', '\u{111de}', '\u{111df}',
    '\u{11238}', '\u{11239}', '\u{1123b}', '\u{1123c}', '\u{112a9}', '\u{1144b}', '\u{1144c}',
    '\u{115c2}', '\u{115c3}', '\u{115c9}', '\u{115ca}', '\u{115cb}', '\u{115cc}', '\u{115cd}',
    '\u{115ce}', '\u{115cf}', '\u{115d0}', '\u{115d1}', '\u{115d2}', '\u{115d3}', '\u{115d4}',
    '\u{115d5}', '\u{115d6}', '\u{115d7}', '\u{11641}', '\u{11642}', '\u{1173c}', '\u{1173d}',
    '\u{1173e}', '\u{11944}', '\u{11946}', '\u{11a42}', '\u{11a43}', '\u{11a9b}', '\u{11a9c}',
    '\u{11c41}', '\u{11c42}', '\u{11ef7}', '\u{11ef8}', '\u{11f43}', '\u{11f44}', '\u{16a6e}',
    '\u{16a6f}', '\u{16af5}', '\u{16b37}', '\u{16b38}', '\u{16b44}', '\u{16e98}', '\u{1bc9f}',
    '\u{1da88}',
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_where_python_ends_them_whatever_the_character() {
        // Padded so that every character is read at each place of the
        // eight bytes read at once, and in the bytes after them.
        for (c, pad) in (0..0x3100u32)
            .filter_map(char::from_u32)
            .flat_map(|c| (0..9).map(move |p| (c, "x".repeat(p))))
        {
            let text = format!("{pad}a{c}b\nc{c}{c}é{c}{pad}");
            let mut lines = Vec::new();
            let mut rest = text.as_str();
            while let Some((at, ch)) = rest.char_indices().find(|&(_, ch)| is_line_end(ch)) {
                lines.push(&rest[..at]);
                let mut next = at + ch.len_utf8();
                if ch == '\r' && rest[next..].starts_with('\n') {
                    next += 1;
                }
                rest = &rest[next..];
            }
            if !rest.is_empty() {
                lines.push(rest);
            }
            assert_eq!(splitlines(&text).collect::<Vec<_>>(), lines, "{c:?}");
        }
    }

    #[test]
    fn a_words_characters_are_counted_as_python_counts_them_in_the_text_or_not() {
        let text = "naïve 日本語 a é ab€ xyzzyxyzzy ñññññ Zoë’s x";
        let static_words = ["naïve", "日本", "", "’s", "abcdefghi"];
        for (i, _) in text.char_indices() {
            for (j, _) in text[i..]
                .char_indices()
                .skip(1)
                .chain([(text.len() - i, ' ')])
            {
                let w = &text[i..i + j];
                assert_eq!(chars_of_word_in(text, w), chars(w), "{w:?}");
            }
        }
        for w in static_words {
            assert_eq!(chars_of_word_in(text, w), chars(w), "{w:?}");
        }
    }

    #[test]
    fn at_least_words_is_the_split_count_compared() {
        for line in [
            "",
            " ",
            "a",
            "a b",
            " a  b c ",
            "a\tb\u{a0}c",
            "é b c d",
            "a\u{2003}b",
            "x y z w v",
        ] {
            for k in 0..6 {
                assert_eq!(
                    at_least_words(line, k),
                    split_counts(line).0 >= k,
                    "{line:?} {k}"
                );
            }
        }
    }

    #[test]
    fn lines_and_characters_as_python_counts_them() {
        assert_eq!(
            splitlines("a\r\nb\n\nc\n").collect::<Vec<_>>(),
            ["a", "b", "", "c"]
        );
        assert_eq!(chars("naïve"), 5);
        for (text, pattern, n) in [
            (".....", "...", 1),
            ("......", "...", 2),
            ("a#b##", "#", 3),
            ("x…y……", "…", 3),
            ("ab", "", 3),
        ] {
            assert_eq!(count(text, pattern), n, "{text:?} {pattern:?}");
            assert_eq!(count(text, pattern), text.matches(pattern).count());
        }
        for line in [
            "",
            "  a bb\tccc \x1c dddd ",
            "naïve  words\u{a0}here",
            "one",
            "x\u{2003}yy",
        ] {
            let words: Vec<&str> = line.split(is_space).filter(|w| !w.is_empty()).collect();
            let longest = words.iter().map(|w| chars(w)).max().unwrap_or(0);
            assert_eq!(split_counts(line), (words.len(), longest), "{line:?}");
        }
        assert!(is_symbol("...") && is_symbol("''") && !is_symbol("a."));
        assert!(ends_sentence("Done.") && ends_sentence("¿Qué?") && !ends_sentence("no"));
    }
}
