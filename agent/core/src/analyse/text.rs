//! The page's visible text, held once, with compact tables over it.
//!
//! Text arrives in pieces (text nodes, split at inline tags); `TextBuilder`
//! appends it to one `String` with whitespace collapsed, and records:
//! - **segments**: each run of text between two tags, as a byte range into the
//!   text, with its word count and how many tags and links came before it —
//!   the token sequence the tag plateau needs, run-length encoded (a run of
//!   words is one entry, a run of tags is a count), so no allocation per token;
//! - **blocks**: paragraphs, i.e. the text between block-level boundaries
//!   (`p`, `div`, `li`, headings, `td`, `br br`, ...), separated by `\n` in the text.

/// Segment flag: the text is inside an `<a href>`.
pub const IN_LINK: u16 = 1;
/// Segment flag: the text is inside the element the site's content-tag rule selects.
pub const IN_CONTENT: u16 = 2;
/// Segment flag: the innermost hinted ancestor looks like boilerplate (nav, footer, share bar... see `hints`).
pub const IN_BOILER: u16 = 4;
/// Segment flag: the innermost hinted ancestor looks like the content (`article`, `main`, `post-content`...).
pub const IN_GOOD: u16 = 8;
/// Segment flag: form controls (`select`, `option`, `button`, `textarea`): never content.
pub const IN_UI: u16 = 16;
/// Segment flag: inside a heading (`h1`..`h6`).
pub const IN_HEADING: u16 = 32;
/// Segment flag: inside an `h1`.
pub const IN_H1: u16 = 64;
/// Segment flag: inside a list item or a table cell.
pub const IN_ITEM: u16 = 128;
/// Segment flag: inside a `<p>`.
pub const IN_P: u16 = 256;
/// Segment flag: preformatted or code (`pre`, `code`, `kbd`, `samp`).
pub const IN_CODE: u16 = 512;
/// Segment flag: inside a table cell (`td`, `th`).
pub const IN_CELL: u16 = 1024;
/// Segment flag: inside a `blockquote` or `q`.
pub const IN_QUOTE: u16 = 2048;
/// Segment flag: inside a `form`, `label` or `fieldset` (not a control itself).
pub const IN_FORM: u16 = 4096;
/// Segment flag: inside a `figcaption`: a picture's caption and credit
/// ("Foto: dpa", "Credit: Getty Images"), about the picture, not part of the
/// text (the text of a `figure` itself — a table, a quote — is).
pub const IN_CAPTION: u16 = 8192;
/// Segment flag: inside `time` or `address` (dates, bylines).
pub const IN_META: u16 = 16384;
/// Segment flag: inside emphasis (`strong`, `b`, `em`, `i`).
pub const IN_EMPH: u16 = 32768;

/// A run of text between two tags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    /// Byte range in `Analysis::text`.
    pub start: u32,
    pub end: u32,
    /// Words that start in this segment.
    pub words: u32,
    /// Tags (start and explicit end tags) between the previous segment and this one.
    pub tags_before: u32,
    /// `<a href>` start tags between the previous segment and this one.
    pub links_before: u32,
    /// Index of the block (paragraph) this segment belongs to.
    pub block: u32,
    /// `IN_*` flags.
    pub flags: u16,
}

/// What a paragraph is in the page's outline: the innermost structural
/// element around its first text. Markdown output is written from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Role {
    #[default]
    Plain,
    /// `h1`..`h6`, with its level.
    Heading(u8),
    /// A list item of a `ul` (or of no list).
    Item,
    /// A list item of an `ol`.
    Ordered,
    /// A table cell (`td`).
    Cell,
    /// A table header cell (`th`).
    HeaderCell,
    /// Preformatted text (`pre`).
    Pre,
    /// A `blockquote`.
    Quote,
}

/// A paragraph: a byte range in `Analysis::text`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    pub start: u32,
    pub end: u32,
    /// Open elements when its first text arrived: how deep in the page it sits.
    pub depth: u32,
    /// Its role in the outline.
    pub role: Role,
    /// The first text of a table row (`tr`) is in this block.
    pub row: bool,
    /// The path hash of the element its first text sits in (names and
    /// classes of it and its ancestors): repeated blocks share it.
    pub path: u32,
}

/// Builds the text and its tables; see the module documentation.
#[derive(Debug, Default)]
pub struct TextBuilder {
    pub(crate) text: String,
    pub(crate) segments: Vec<Segment>,
    pub(crate) blocks: Vec<Block>,
    block_start: usize,
    /// Depth of the current paragraph (see `Block::depth`).
    block_depth: u32,
    block_path: u32,
    block_role: Role,
    block_row: bool,
    /// A table row started and no text has come since.
    row_pending: bool,
    pending_space: bool,
    pending_tags: u32,
    pending_links: u32,
    /// True while only whitespace has followed a `<br>`: a second one ends the paragraph.
    after_br: bool,
    pub(crate) words: u32,
    /// Thousandths of a word read in scripts without spaces (see
    /// `unspaced_weight`); a word is counted each time a thousand gather.
    unspaced_units: u32,
    /// The last character was of such a script (a spaced letter right after
    /// one starts a word).
    after_unspaced: bool,
    pub(crate) tags: u32,
    pub(crate) links: u32,
}

impl TextBuilder {
    pub fn with_capacity(bytes: usize) -> Self {
        TextBuilder {
            text: String::with_capacity(bytes),
            segments: Vec::with_capacity(bytes / 64),
            blocks: Vec::with_capacity(bytes / 256),
            ..Default::default()
        }
    }

    /// A tag token (start tag or explicit end tag).
    #[inline]
    pub fn tag(&mut self) {
        self.pending_tags += 1;
        self.tags += 1;
    }

    /// An `<a href>` start tag.
    #[inline]
    pub fn link(&mut self) {
        self.pending_links += 1;
        self.links += 1;
    }

    /// A `<tr>`: the next paragraph starts a table row.
    #[inline]
    pub fn row(&mut self) {
        self.row_pending = true;
    }

    /// A `<br>`: a line break, and with a second one in a row, a paragraph break.
    pub fn br(&mut self) {
        if self.after_br {
            self.block_break();
        } else {
            self.pending_space = true;
            self.after_br = true;
        }
    }

    /// A block-level boundary: the current paragraph, if it has text, ends here.
    pub fn block_break(&mut self) {
        if self.text.len() > self.block_start {
            self.blocks.push(Block {
                start: self.block_start as u32,
                end: self.text.len() as u32,
                depth: self.block_depth,
                role: self.block_role,
                row: self.block_row,
                path: self.block_path,
            });
            self.text.push('\n');
            self.block_start = self.text.len();
        }
        self.pending_space = false;
        self.after_br = false;
    }

    /// Appends visible text (entities already decoded); `depth` is the
    /// number of open elements around it and `path` the innermost one's path
    /// hash, `role` the innermost structural one's.
    pub fn push_text(&mut self, s: &str, flags: u16, (depth, path): (u32, u32), role: Role) {
        if self.text.len() == self.block_start {
            self.block_depth = depth;
            self.block_path = path;
            self.block_role = role;
            self.block_row = false;
        }
        let bytes = s.as_bytes();
        if self.only_spaces(bytes) {
            return;
        }
        let mut i = 0;
        let mut seg_start: Option<usize> = None;
        let mut words = 0u32;
        while i < bytes.len() {
            let b = bytes[i];
            // ASCII fast path; everything else goes through `char`.
            let (c, len) = if b < 0x80 {
                (b as char, 1)
            } else {
                let c = s[i..].chars().next().unwrap_or('\u{FFFD}');
                (c, c.len_utf8())
            };
            i += len;
            if c.is_whitespace() || is_private_use(c) {
                self.pending_space = true;
                continue;
            }
            let block_empty = self.text.len() == self.block_start;
            let weight = if b < 0x80 { 0 } else { unspaced_weight(c) };
            let word_start = if weight > 0 {
                self.after_unspaced = true;
                self.unspaced_units += weight;
                let whole = self.unspaced_units >= 1000;
                if whole {
                    self.unspaced_units -= 1000;
                }
                whole
            } else {
                let start = block_empty || self.pending_space || self.after_unspaced;
                self.after_unspaced = false;
                start
            };
            if self.pending_space && !block_empty {
                self.text.push(' ');
            }
            self.pending_space = false;
            self.after_br = false;
            if block_empty && self.row_pending {
                self.row_pending = false;
                self.block_row = true;
            }
            if seg_start.is_none() {
                seg_start = Some(self.text.len());
            }
            // The rest of an ASCII word changes no state: copy it whole.
            let end = if b < 0x80 {
                ascii_word_end(bytes, i)
            } else {
                i
            };
            self.text.push_str(&s[i - len..end]);
            i = end;
            if word_start {
                words += 1;
            }
            if b < 0x80 {
                // Inside a run of ASCII after a word the state is settled
                // (the block has text, nothing unspaced came last): a space
                // before a word is all there is to write.
                i = self.push_ascii_words(s, i, &mut words);
            }
        }
        let Some(start) = seg_start else { return };
        self.words += words;
        self.segment(start, words, flags);
    }

    /// Notes a space for a node of ASCII white space alone and says so.
    /// Many of a page's text nodes are the line breaks and indents between
    /// its tags: all `push_text`'s loop would do is note a space, byte by
    /// byte. The test stops at the first other byte, at once on a node of
    /// words.
    #[inline(always)]
    fn only_spaces(&mut self, bytes: &[u8]) -> bool {
        if !bytes.iter().all(|&b| is_ascii_space(b)) {
            return false;
        }
        self.pending_space |= !bytes.is_empty();
        true
    }

    /// The text pushed since `start` as a segment: the previous one's
    /// continuation when only the reader's buffering split them (no tag
    /// between, same block and flags), else a new one. Inlined: it ends
    /// every text node.
    #[inline(always)]
    fn segment(&mut self, start: usize, words: u32, flags: u16) {
        let block = self.blocks.len() as u32;
        let end = self.text.len() as u32;
        if self.pending_tags == 0 && self.pending_links == 0 {
            if let Some(last) = self.segments.last_mut() {
                if last.block == block && last.flags == flags {
                    last.end = end;
                    last.words += words;
                    return;
                }
            }
        }
        self.segments.push(Segment {
            start: start as u32,
            end,
            words,
            tags_before: std::mem::take(&mut self.pending_tags),
            links_before: std::mem::take(&mut self.pending_links),
            block,
            flags,
        });
    }

    /// Appends the ASCII words and spaces of `s` from `i` up to its end or
    /// its next non-ASCII byte, as the loop in `push_text` would after an
    /// ASCII word; returns where it stopped. A space before the stop is
    /// left pending.
    fn push_ascii_words(&mut self, s: &str, mut i: usize, words: &mut u32) -> usize {
        let bytes = s.as_bytes();
        loop {
            // Most text is words and single spaces: written as it stands, in
            // one copy, each space a word more.
            let (end, spaces) = plain_run(bytes, i);
            if end > i {
                self.text.push_str(&s[i..end]);
                *words += spaces;
                i = end;
            }
            let mut j = i;
            while j < bytes.len() && is_ascii_space(bytes[j]) {
                j += 1;
            }
            let spaced = j > i;
            if j == bytes.len() || bytes[j] >= 0x80 {
                self.pending_space |= spaced;
                return j;
            }
            let end = ascii_word_end(bytes, j + 1);
            if spaced {
                self.text.push(' ');
                *words += 1;
            }
            self.text.push_str(&s[j..end]);
            i = end;
        }
    }

    /// Closes the last paragraph; returns the tags after the last segment.
    pub fn finish(&mut self) -> u32 {
        self.block_break();
        if self.text.ends_with('\n') {
            self.text.pop();
        }
        std::mem::take(&mut self.pending_tags)
    }
}

/// The longest prefix of `s` of at most `max` bytes that ends on a character boundary.
pub fn prefix(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Character references decoded, as `html_escape::decode_html_entities`
/// does, with the five that make up nearly all of them on real pages
/// (`&amp;` `&lt;` `&gt;` `&quot;` `&nbsp;`) decoded without its lookup
/// among 2,231 names (a run of `&amp;` took 24 ns a byte through it).
pub fn decode_entities(s: &str) -> std::borrow::Cow<'_, str> {
    const COMMON: [(&str, char); 5] = [
        ("&amp;", '&'),
        ("&lt;", '<'),
        ("&gt;", '>'),
        ("&quot;", '"'),
        ("&nbsp;", '\u{a0}'),
    ];
    // Most values are a few bytes with no reference: searched by word.
    let Some(first) = super::bytes::find_short(b'&', s.as_bytes()) else {
        return std::borrow::Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len());
    out.push_str(&s[..first]);
    let mut rest = &s[first..];
    // `rest` starts with `&` here, every time round.
    while !rest.is_empty() {
        let next = memchr::memchr(b'&', &rest.as_bytes()[1..]).map_or(rest.len(), |k| k + 1);
        match COMMON.iter().find(|(name, _)| rest.starts_with(name)) {
            Some(&(name, c)) => {
                out.push(c);
                out.push_str(&rest[name.len()..next]);
            }
            // One `&` per piece: the piece decodes as it would in the whole.
            None => out.push_str(&html_escape::decode_html_entities(&rest[..next])),
        }
        rest = &rest[next..];
    }
    std::borrow::Cow::Owned(out)
}

/// Where the ASCII word going on at `from` ends: at the next space,
/// non-ASCII byte or the end.
#[inline]
/// From `i`, the longest run that the word loop writes as it stands: bytes
/// 0x20..=0x7F, no space after a space, no space at its end. Returns its
/// end and its spaces. Eight bytes a step (`bytes`).
fn plain_run(bytes: &[u8], i: usize) -> (usize, u32) {
    let mut at = i;
    let mut spaces = 0u32;
    let mut prev_space = false;
    while let Some(w) = super::bytes::word_at(bytes, at) {
        // Control and white space but the space, and every non-ASCII byte.
        let outside = super::bytes::outside_printable(w);
        let space = super::bytes::equal(w, b' ');
        let doubled = space & ((space << 8) | ((prev_space as u64) << 7));
        let stop = outside | doubled;
        if stop != 0 {
            let k = stop.trailing_zeros() / 8;
            let before = (1u64 << (8 * k)).wrapping_sub(1);
            spaces += (space & before).count_ones();
            at += k as usize;
            return trimmed(bytes, i, at, spaces);
        }
        spaces += space.count_ones();
        prev_space = space >> 63 != 0;
        at += 8;
    }
    while let Some(&b) = bytes.get(at) {
        let is_space = b == b' ';
        if !(0x20..0x80).contains(&b) || (is_space && prev_space) {
            break;
        }
        spaces += is_space as u32;
        prev_space = is_space;
        at += 1;
    }
    trimmed(bytes, i, at, spaces)
}

/// The run `i..end` less a space at its end (the word loop keeps that one
/// pending: what follows may end the block).
#[inline]
fn trimmed(bytes: &[u8], i: usize, end: usize, spaces: u32) -> (usize, u32) {
    if end > i && bytes[end - 1] == b' ' {
        (end - 1, spaces - 1)
    } else {
        (end, spaces)
    }
}

fn ascii_word_end(bytes: &[u8], from: usize) -> usize {
    from + bytes[from..]
        .iter()
        .position(|&b| b >= 0x80 || is_ascii_space(b))
        .unwrap_or(bytes.len() - from)
}

/// ASCII whitespace as `char::is_whitespace` has it (with U+000B, unlike
/// `u8::is_ascii_whitespace`).
#[inline]
fn is_ascii_space(b: u8) -> bool {
    b == b' ' || (b'\t'..=b'\r').contains(&b)
}

/// Unicode's private-use areas. On the web their characters are icon-font
/// glyphs (Material Icons, Font Awesome, site icon sets: a star, a cart, an
/// arrow), drawn by a font the reader's text does not have: no words, and a
/// "word" of one glyph between two icons would make a paragraph of nothing.
/// So they read as space.
#[inline]
fn is_private_use(c: char) -> bool {
    matches!(c as u32, 0xE000..=0xF8FF | 0xF0000..=0x10FFFF)
}

/// Attribute-like text (`<title>`, `<meta>` values, JSON-LD strings) as a
/// reader sees it: entities decoded, whitespace collapsed.
pub fn clean(s: &str) -> String {
    let decoded = decode_entities(s);
    decoded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Words per character (in thousandths) of the scripts written without
/// spaces between words, 0 for the others. Measured with dictionary
/// segmenters on real sentences (`bench/words_per_script.py`): Thai 4.89
/// characters a word (pythainlp), Chinese 1.76 (jieba), Japanese 1.73
/// (janome). Lao, Khmer and Myanmar take Thai's figure (no sentences to
/// measure them on; syllabic scripts of the same family). So `min_words`
/// means about the same amount of text in every script.
#[inline]
pub fn unspaced_weight(c: char) -> u32 {
    match c as u32 {
        0x0E00..=0x0EFF       // Thai, Lao
        | 0x1000..=0x109F     // Myanmar
        | 0x1780..=0x17FF     // Khmer
        | 0x19E0..=0x19FF     // Khmer symbols
        | 0xA9E0..=0xA9FF     // Myanmar extended-B
        | 0xAA60..=0xAA7F     // Myanmar extended-A
            => 204,
        _ if is_cjk(c) => 571,
        _ => 0,
    }
}

/// Han ideographs and kana: Chinese and Japanese text.
#[inline]
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x20000..=0x2FFFF) // CJK Extensions B..F
}

#[cfg(test)]
mod tests {
    /// `plain_run` byte by byte, as its documentation defines it.
    fn plain_run_by_bytes(bytes: &[u8], i: usize) -> (usize, u32) {
        let (mut at, mut spaces) = (i, 0);
        while at < bytes.len()
            && (0x20..0x80).contains(&bytes[at])
            && !(bytes[at] == b' ' && at > i && bytes[at - 1] == b' ')
        {
            spaces += (bytes[at] == b' ') as u32;
            at += 1;
        }
        super::trimmed(bytes, i, at, spaces)
    }

    #[test]
    fn plain_runs_are_found_eight_bytes_at_a_time_as_one_by_one() {
        let alphabet: &[u8] = b"ab  \n\t\x7f\x1f\x0b~!\xc3\xa9";
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..50_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 40) as usize;
            let mut y = x;
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    y = y.wrapping_mul(6364136223846793005).wrapping_add(1);
                    // Mostly letters, so that runs are long.
                    let r = (y >> 33) as usize;
                    if r % 3 == 0 {
                        alphabet[r / 3 % alphabet.len()]
                    } else {
                        b'a' + (r % 26) as u8
                    }
                })
                .collect();
            for i in 0..=len.min(3) {
                assert_eq!(
                    super::plain_run(&bytes, i),
                    plain_run_by_bytes(&bytes, i),
                    "{bytes:?} from {i}"
                );
            }
        }
    }

    use super::*;

    /// Plain text nodes with an inline tag between each two, finished.
    fn inline(nodes: &[&str]) -> TextBuilder {
        let mut b = TextBuilder::default();
        for (i, node) in nodes.iter().enumerate() {
            if i > 0 {
                b.tag();
            }
            b.push_text(node, 0, (0, 0), Role::Plain);
        }
        b.finish();
        b
    }

    #[test]
    fn collapses_whitespace_and_counts_words_across_inline_tags() {
        let b = inline(&["  red-", "or", "-blue   sky\n"]);
        assert_eq!(b.text, "red-or-blue sky");
        assert_eq!(b.words, 2);
        assert_eq!(b.segments.len(), 3);
        assert_eq!(b.segments[1].tags_before, 1);
    }

    #[test]
    fn nodes_of_white_space_alone_leave_a_space_and_nothing_else() {
        // Every ASCII space `char::is_whitespace` counts (U+000B too) between
        // two inline tags is one space; an empty node is none; a node of
        // spaces makes no segment and starts no word.
        let b = inline(&["red", " \t\n\u{b}\u{c}\r", "sky", "", "line"]);
        assert_eq!(b.text, "red skyline");
        assert_eq!(b.words, 2);
        assert_eq!(b.segments.len(), 3);
        assert_eq!(b.segments[1].tags_before, 2);
        assert_eq!(b.segments[2].tags_before, 2);
    }

    #[test]
    fn blocks_are_separated_and_double_br_breaks() {
        let mut b = TextBuilder::default();
        b.push_text("one two", 0, (0, 0), Role::Plain);
        b.block_break();
        b.block_break(); // empty block: nothing
        b.push_text("three", 0, (0, 0), Role::Plain);
        b.br();
        b.push_text("four", 0, (0, 0), Role::Plain);
        b.br();
        b.push_text(" ", 0, (0, 0), Role::Plain);
        b.br();
        b.push_text("five", 0, (0, 0), Role::Plain);
        b.finish();
        assert_eq!(b.text, "one two\nthree four\nfive");
        assert_eq!(b.blocks.len(), 3);
        let para = |k: usize| &b.text[b.blocks[k].start as usize..b.blocks[k].end as usize];
        assert_eq!(para(1), "three four");
    }

    fn words(text: &str) -> u32 {
        let mut b = TextBuilder::default();
        b.push_text(text, 0, (0, 0), Role::Plain);
        b.finish();
        b.words
    }

    #[test]
    fn unspaced_scripts_count_words_by_characters_per_word() {
        // 中文 网页 + abc: 4 Han characters at 1.76 a word, then a Latin word.
        assert_eq!(words("中文网页 abc"), 3);
        assert_eq!(
            words("中文网页abc"),
            3,
            "a Latin word right after Han starts a word"
        );
        // Thai's spaces separate phrases, not words: 6 words, 24 characters
        // (ภาษา ไทย เป็น ภาษา ที่ สวยงาม), then 2 more phrases of 3 and 2.
        let th = "ภาษาไทยเป็นภาษาที่สวยงาม ฉันชอบอ่านหนังสือ วันนี้อากาศดี";
        let n = words(th);
        assert!((8..=13).contains(&n), "{n} words for about 11");
        // 1,000 Han characters: about 570 words, not 1,000.
        assert_eq!(words(&"中".repeat(1000)), 571);
        assert_eq!(words("one two three"), 3);
    }

    #[test]
    fn icon_font_glyphs_are_not_words() {
        // Material Icons' star (U+E838) between a rating's words, and a
        // paragraph of nothing but glyphs.
        let mut b = TextBuilder::default();
        b.push_text("\u{e838}\u{e838} Perfekt\u{e5cc}", 0, (0, 0), Role::Plain);
        b.block_break();
        b.push_text(" \u{e83a} \u{f0001} ", 0, (0, 0), Role::Plain);
        b.finish();
        assert_eq!(b.text, "Perfekt");
        assert_eq!((b.words, b.blocks.len()), (1, 1));
    }

    #[test]
    fn entities_decode_as_html_escape_does() {
        let cases = [
            "a &amp; b &lt;c&gt; &quot;d&quot; e&nbsp;f",
            "&amp &ampx; &AMP; &amp;amp; &#38; &#x26; &#39; &hellip; &notin; &noti &",
            "&&&;;& &amp;&amp;&amp;x &unknown; tail&",
            "no references at all",
            "é &eacute; &#233; 日本 &#x65E5;",
        ];
        for c in cases {
            assert_eq!(
                decode_entities(c),
                html_escape::decode_html_entities(c),
                "{c}"
            );
        }
        let mut x = 7u64;
        let alphabet = [
            "&", "amp", ";", "lt", "gt", "quot", "nbsp", "#", "x", "3", "9", "a", " ", "é",
        ];
        for _ in 0..20_000 {
            let mut s = String::new();
            for _ in 0..12 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                s.push_str(alphabet[(x % alphabet.len() as u64) as usize]);
            }
            assert_eq!(
                decode_entities(&s),
                html_escape::decode_html_entities(&s),
                "{s}"
            );
        }
    }
}
