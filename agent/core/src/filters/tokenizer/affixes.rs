//! spaCy's English prefix, suffix and infix rules (`spacy/lang/punctuation.py`),
//! their character classes written out: what `super::words` splits a span by
//! once no exception matches it.

/// Characters spaCy's English prefixes and suffixes split off alone.
fn is_affix_char(c: char) -> bool {
    matches!(
        c,
        '…' | ','
            | ':'
            | ';'
            | '!'
            | '?'
            | '¿'
            | '؟'
            | '¡'
            | '('
            | ')'
            | '['
            | ']'
            | '{'
            | '}'
            | '<'
            | '>'
            | '_'
            | '#'
            | '*'
            | '&'
            | '。'
            | '？'
            | '！'
            | '，'
            | '、'
            | '；'
            | '：'
            | '～'
            | '·'
            | '।'
            | '،'
            | '۔'
            | '؛'
            | '٪'
    ) || is_quote(c)
        || is_icon(c)
}

fn is_quote(c: char) -> bool {
    matches!(
        c,
        '\'' | '"'
            | '”'
            | '“'
            | '`'
            | '‘'
            | '´'
            | '’'
            | '‚'
            | '„'
            | '»'
            | '«'
            | '「'
            | '」'
            | '『'
            | '』'
            | '（'
            | '）'
            | '〔'
            | '〕'
            | '【'
            | '】'
            | '《'
            | '》'
            | '〈'
            | '〉'
            | '⟦'
            | '⟧'
    )
}

fn is_currency(c: char) -> bool {
    matches!(c, '$' | '£' | '€' | '¥' | '฿' | '₽' | '﷼' | '₠'..='₿')
}

/// Unicode's "other symbols" (emoji, arrows, boxes) as spaCy's class lists them.
pub(super) fn is_icon(c: char) -> bool {
    if (c as u32) < 0xa6 {
        return false;
    }
    let at = ICONS.partition_point(|&(_, hi)| hi < c);
    ICONS.get(at).is_some_and(|&(lo, _)| lo <= c)
}

/// spaCy's icon class (Unicode's other symbols, So), its ranges.
#[rustfmt::skip]
const ICONS: [(char, char); 200] = [
    ('\u{a6}', '\u{a6}'), ('\u{a9}', '\u{a9}'), ('\u{ae}', '\u{ae}'), ('\u{b0}', '\u{b0}'),
    ('\u{482}', '\u{482}'), ('\u{58d}', '\u{58d}'), ('\u{58e}', '\u{58e}'), ('\u{60e}', '\u{60e}'),
    ('\u{60f}', '\u{60f}'), ('\u{6de}', '\u{6de}'), ('\u{6e9}', '\u{6e9}'), ('\u{6fd}', '\u{6fd}'),
    ('\u{6fe}', '\u{6fe}'), ('\u{7f6}', '\u{7f6}'), ('\u{9fa}', '\u{9fa}'), ('\u{b70}', '\u{b70}'),
    ('\u{bf3}', '\u{bf8}'), ('\u{bfa}', '\u{bfa}'), ('\u{c7f}', '\u{c7f}'), ('\u{d4f}', '\u{d4f}'),
    ('\u{d79}', '\u{d79}'), ('\u{f01}', '\u{f03}'), ('\u{f13}', '\u{f13}'), ('\u{f15}', '\u{f17}'),
    ('\u{f1a}', '\u{f1f}'), ('\u{f34}', '\u{f34}'), ('\u{f36}', '\u{f36}'), ('\u{f38}', '\u{f38}'),
    ('\u{fbe}', '\u{fc5}'), ('\u{fc7}', '\u{fcc}'), ('\u{fce}', '\u{fce}'), ('\u{fcf}', '\u{fcf}'),
    ('\u{fd5}', '\u{fd8}'), ('\u{109e}', '\u{109e}'), ('\u{109f}', '\u{109f}'),
    ('\u{1390}', '\u{1399}'), ('\u{1940}', '\u{1940}'), ('\u{19de}', '\u{19ff}'),
    ('\u{1b61}', '\u{1b6a}'), ('\u{1b74}', '\u{1b7c}'), ('\u{2100}', '\u{2100}'),
    ('\u{2101}', '\u{2101}'), ('\u{2103}', '\u{2106}'), ('\u{2108}', '\u{2108}'),
    ('\u{2109}', '\u{2109}'), ('\u{2114}', '\u{2114}'), ('\u{2116}', '\u{2116}'),
    ('\u{2117}', '\u{2117}'), ('\u{211e}', '\u{2123}'), ('\u{2125}', '\u{2125}'),
    ('\u{2127}', '\u{2127}'), ('\u{2129}', '\u{2129}'), ('\u{212e}', '\u{212e}'),
    ('\u{213a}', '\u{213a}'), ('\u{213b}', '\u{213b}'), ('\u{214a}', '\u{214a}'),
    ('\u{214c}', '\u{214c}'), ('\u{214d}', '\u{214d}'), ('\u{214f}', '\u{214f}'),
    ('\u{218a}', '\u{218a}'), ('\u{218b}', '\u{218b}'), ('\u{2195}', '\u{2199}'),
    ('\u{219c}', '\u{219f}'), ('\u{21a1}', '\u{21a1}'), ('\u{21a2}', '\u{21a2}'),
    ('\u{21a4}', '\u{21a4}'), ('\u{21a5}', '\u{21a5}'), ('\u{21a7}', '\u{21ad}'),
    ('\u{21af}', '\u{21cd}'), ('\u{21d0}', '\u{21d0}'), ('\u{21d1}', '\u{21d1}'),
    ('\u{21d3}', '\u{21d3}'), ('\u{21d5}', '\u{21f3}'), ('\u{2300}', '\u{2307}'),
    ('\u{230c}', '\u{231f}'), ('\u{2322}', '\u{2328}'), ('\u{232b}', '\u{237b}'),
    ('\u{237d}', '\u{239a}'), ('\u{23b4}', '\u{23db}'), ('\u{23e2}', '\u{2426}'),
    ('\u{2440}', '\u{244a}'), ('\u{249c}', '\u{24e9}'), ('\u{2500}', '\u{25b6}'),
    ('\u{25b8}', '\u{25c0}'), ('\u{25c2}', '\u{25f7}'), ('\u{2600}', '\u{266e}'),
    ('\u{2670}', '\u{2767}'), ('\u{2794}', '\u{27bf}'), ('\u{2800}', '\u{28ff}'),
    ('\u{2b00}', '\u{2b2f}'), ('\u{2b45}', '\u{2b45}'), ('\u{2b46}', '\u{2b46}'),
    ('\u{2b4d}', '\u{2b73}'), ('\u{2b76}', '\u{2b95}'), ('\u{2b98}', '\u{2bc8}'),
    ('\u{2bca}', '\u{2bfe}'), ('\u{2ce5}', '\u{2cea}'), ('\u{2e80}', '\u{2e99}'),
    ('\u{2e9b}', '\u{2ef3}'), ('\u{2f00}', '\u{2fd5}'), ('\u{2ff0}', '\u{2ffb}'),
    ('\u{3004}', '\u{3004}'), ('\u{3012}', '\u{3012}'), ('\u{3013}', '\u{3013}'),
    ('\u{3020}', '\u{3020}'), ('\u{3036}', '\u{3036}'), ('\u{3037}', '\u{3037}'),
    ('\u{303e}', '\u{303e}'), ('\u{303f}', '\u{303f}'), ('\u{3190}', '\u{3190}'),
    ('\u{3191}', '\u{3191}'), ('\u{3196}', '\u{319f}'), ('\u{31c0}', '\u{31e3}'),
    ('\u{3200}', '\u{321e}'), ('\u{322a}', '\u{3247}'), ('\u{3250}', '\u{3250}'),
    ('\u{3260}', '\u{327f}'), ('\u{328a}', '\u{32b0}'), ('\u{32c0}', '\u{32fe}'),
    ('\u{3300}', '\u{33ff}'), ('\u{4dc0}', '\u{4dff}'), ('\u{a490}', '\u{a4c6}'),
    ('\u{a828}', '\u{a82b}'), ('\u{a836}', '\u{a836}'), ('\u{a837}', '\u{a837}'),
    ('\u{a839}', '\u{a839}'), ('\u{aa77}', '\u{aa79}'), ('\u{fdfd}', '\u{fdfd}'),
    ('\u{ffe4}', '\u{ffe4}'), ('\u{ffe8}', '\u{ffe8}'), ('\u{ffed}', '\u{ffed}'),
    ('\u{ffee}', '\u{ffee}'), ('\u{fffc}', '\u{fffc}'), ('\u{fffd}', '\u{fffd}'),
    ('\u{10137}', '\u{1013f}'), ('\u{10179}', '\u{10189}'), ('\u{1018c}', '\u{1018e}'),
    ('\u{10190}', '\u{1019b}'), ('\u{101a0}', '\u{101a0}'), ('\u{101d0}', '\u{101fc}'),
    ('\u{10877}', '\u{10877}'), ('\u{10878}', '\u{10878}'), ('\u{10ac8}', '\u{10ac8}'),
    ('\u{1173f}', '\u{1173f}'), ('\u{16b3c}', '\u{16b3f}'), ('\u{16b45}', '\u{16b45}'),
    ('\u{1bc9c}', '\u{1bc9c}'), ('\u{1d000}', '\u{1d0f5}'), ('\u{1d100}', '\u{1d126}'),
    ('\u{1d129}', '\u{1d164}'), ('\u{1d16a}', '\u{1d16c}'), ('\u{1d183}', '\u{1d183}'),
    ('\u{1d184}', '\u{1d184}'), ('\u{1d18c}', '\u{1d1a9}'), ('\u{1d1ae}', '\u{1d1e8}'),
    ('\u{1d200}', '\u{1d241}'), ('\u{1d245}', '\u{1d245}'), ('\u{1d300}', '\u{1d356}'),
    ('\u{1d800}', '\u{1d9ff}'), ('\u{1da37}', '\u{1da3a}'), ('\u{1da6d}', '\u{1da74}'),
    ('\u{1da76}', '\u{1da83}'), ('\u{1da85}', '\u{1da85}'), ('\u{1da86}', '\u{1da86}'),
    ('\u{1ecac}', '\u{1ecac}'), ('\u{1f000}', '\u{1f02b}'), ('\u{1f030}', '\u{1f093}'),
    ('\u{1f0a0}', '\u{1f0ae}'), ('\u{1f0b1}', '\u{1f0bf}'), ('\u{1f0c1}', '\u{1f0cf}'),
    ('\u{1f0d1}', '\u{1f0f5}'), ('\u{1f110}', '\u{1f16b}'), ('\u{1f170}', '\u{1f1ac}'),
    ('\u{1f1e6}', '\u{1f202}'), ('\u{1f210}', '\u{1f23b}'), ('\u{1f240}', '\u{1f248}'),
    ('\u{1f250}', '\u{1f250}'), ('\u{1f251}', '\u{1f251}'), ('\u{1f260}', '\u{1f265}'),
    ('\u{1f300}', '\u{1f3fa}'), ('\u{1f400}', '\u{1f6d4}'), ('\u{1f6e0}', '\u{1f6ec}'),
    ('\u{1f6f0}', '\u{1f6f9}'), ('\u{1f700}', '\u{1f773}'), ('\u{1f780}', '\u{1f7d8}'),
    ('\u{1f800}', '\u{1f80b}'), ('\u{1f810}', '\u{1f847}'), ('\u{1f850}', '\u{1f859}'),
    ('\u{1f860}', '\u{1f887}'), ('\u{1f890}', '\u{1f8ad}'), ('\u{1f900}', '\u{1f90b}'),
    ('\u{1f910}', '\u{1f93e}'), ('\u{1f940}', '\u{1f970}'), ('\u{1f973}', '\u{1f976}'),
    ('\u{1f97a}', '\u{1f97a}'), ('\u{1f97c}', '\u{1f9a2}'), ('\u{1f9b0}', '\u{1f9b9}'),
    ('\u{1f9c0}', '\u{1f9c2}'), ('\u{1f9d0}', '\u{1f9ff}'), ('\u{1fa60}', '\u{1fa6d}'),
];

fn first(s: &str) -> Option<char> {
    s.chars().next()
}

/// The length of the prefix spaCy splits off `s` (0: none).
pub(super) fn prefix_len(s: &str) -> usize {
    let Some(c) = first(s) else { return 0 };
    let b = s.as_bytes();
    if c == '.' {
        let dots = b.iter().take_while(|&&x| x == b'.').count();
        return if dots >= 2 { dots } else { 0 };
    }
    if c == '+' {
        return if b.get(1).is_some_and(u8::is_ascii_digit) {
            0
        } else {
            1
        };
    }
    if matches!(c, '§' | '%' | '=' | '—' | '–') || is_affix_char(c) || is_currency(c) {
        return c.len_utf8();
    }
    for money in ["US$", "C$", "A$"] {
        if s.starts_with(money) {
            return money.len();
        }
    }
    0
}

const UNITS: &[&str] = &[
    "km", "km²", "km³", "m", "m²", "m³", "dm", "dm²", "dm³", "cm", "cm²", "cm³", "mm", "mm²",
    "mm³", "ha", "µm", "nm", "yd", "in", "ft", "kg", "g", "mg", "µg", "t", "lb", "oz", "m/s",
    "km/h", "kmh", "mph", "hPa", "Pa", "mbar", "mb", "MB", "kb", "KB", "gb", "GB", "tb", "TB", "T",
    "G", "M", "K", "%",
];

/// The length of the suffix spaCy splits off `s` (0: none): of the
/// alternatives that match at the end, the one starting leftmost.
pub(super) fn suffix_len(s: &str) -> usize {
    let mut best = 0usize;
    let mut take = |len: usize| best = best.max(len);
    let Some(c) = s.chars().next_back() else {
        return 0;
    };
    if is_affix_char(c) || matches!(c, '—' | '–') {
        take(c.len_utf8());
    }
    let dots = s.bytes().rev().take_while(|&x| x == b'.').count();
    if dots >= 2 {
        take(dots);
    }
    if s.ends_with("'s") || s.ends_with("'S") {
        take(2);
    }
    if s.ends_with("’s") || s.ends_with("’S") {
        take("’s".len());
    }
    let before = |len: usize| s[..s.len() - len].chars().next_back();
    if c == '+' && before(1).is_some_and(|p| p.is_ascii_digit()) {
        take(1);
    }
    if is_currency(c) && before(c.len_utf8()).is_some_and(|p| p.is_ascii_digit()) {
        take(c.len_utf8());
    }
    // A unit after a digit: the run of unit characters at the end, whole.
    // (Only a span with a digit can have one.)
    if s.bytes().any(|b| b.is_ascii_digit()) {
        let unit: usize = s
            .chars()
            .rev()
            .take_while(|&c| c.is_alphabetic() || matches!(c, '%' | '/' | '²' | '³'))
            .map(char::len_utf8)
            .sum();
        let at = s.len() - unit;
        if unit > 0 && at > 0 && s.as_bytes()[at - 1].is_ascii_digit() && UNITS.contains(&&s[at..])
        {
            take(unit);
        }
    }
    if c == '.' {
        let mut prev = s[..s.len() - 1].chars().rev();
        match (prev.next(), prev.next()) {
            (Some(p), _)
                if p.is_ascii_digit()
                    || p.is_lowercase()
                    || is_affix_char(p)
                    || "%²-+".contains(p) =>
            {
                take(1)
            }
            (Some(p), Some(q)) if p.is_uppercase() && q.is_uppercase() => take(1),
            (Some(p), Some(q)) if q == '°' && "FfCcKk".contains(p) => take(1),
            _ => {}
        }
    }
    best
}

/// spaCy's English infixes: ellipses and icons anywhere; `-+*^` between
/// digits; a period between a lower-case and an upper-case letter; a comma
/// between letters; hyphens, `:<>=/` after a letter or digit and before a
/// letter. Each is a word, and so is each piece between them.
pub(super) fn split_infixes<'a>(s: &'a str, out: &mut Vec<&'a str>) {
    if s.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return out.push(s);
    }
    let mut start = 0;
    let mut prev: Option<char> = None;
    let mut iter = s.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        // No infix is or begins with an ASCII letter or digit.
        if c.is_ascii_alphanumeric() {
            prev = Some(c);
            continue;
        }
        let rest = &s[i..];
        let next = rest[c.len_utf8()..].chars().next();
        let letter = |x: Option<char>| x.is_some_and(char::is_alphabetic);
        let alnum = |x: Option<char>| x.is_some_and(|x| x.is_alphabetic() || x.is_ascii_digit());
        let len = if rest.starts_with("..") {
            rest.bytes().take_while(|&x| x == b'.').count()
        } else if c == '…' || is_icon(c) {
            c.len_utf8()
        } else if one_char_infix(c, prev, next) {
            1
        } else if alnum(prev) && !rest.is_empty() {
            hyphen_at(rest)
                .or_else(|| (matches!(c, ':' | '<' | '>' | '=' | '/') && letter(next)).then_some(1))
                .unwrap_or(0)
        } else {
            0
        };
        if len > 0 && i > 0 {
            if start < i {
                out.push(&s[start..i]);
            }
            out.push(&s[i..i + len]);
            start = i + len;
            while iter.peek().is_some_and(|&(j, _)| j < start) {
                iter.next();
            }
            prev = s[..start].chars().next_back();
            continue;
        }
        prev = Some(c);
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
}

/// `-+*^` between digits; a period between a lower-case letter and an
/// upper-case one (quotes count as either); a comma between letters.
fn one_char_infix(c: char, prev: Option<char>, next: Option<char>) -> bool {
    let letter = |x: Option<char>| x.is_some_and(char::is_alphabetic);
    match c {
        '+' | '-' | '*' | '^' => {
            prev.is_some_and(|p| p.is_ascii_digit())
                && next.is_some_and(|n| n.is_ascii_digit() || n == '-')
        }
        '.' => {
            prev.is_some_and(|p| p.is_lowercase() || is_quote(p))
                && next.is_some_and(|n| n.is_uppercase() || is_quote(n))
        }
        ',' => letter(prev) && letter(next),
        _ => false,
    }
}

/// A hyphen infix at the start of `rest` followed by a letter (`-`, `–`,
/// `—`, `--`, `---`, `——`, `~`, tried in spaCy's order).
fn hyphen_at(rest: &str) -> Option<usize> {
    ["-", "–", "—", "--", "---", "——", "~"]
        .iter()
        .find_map(|h| {
            (rest.starts_with(h)
                && rest[h.len()..]
                    .chars()
                    .next()
                    .is_some_and(char::is_alphabetic))
            .then_some(h.len())
        })
}
