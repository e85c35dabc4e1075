//! Turning body bytes into text, once per page.
//!
//! The order follows what browsers do, simplified to what a crawler has:
//! a byte-order mark wins, then the HTTP `Content-Type` charset, then a
//! `<meta charset>` / `<meta http-equiv>` in the first 4 KiB (the standard's
//! prescan reads 1,024 bytes; real pages put the tag after long comment and
//! script blocks — seen in Common Crawl), else UTF-8, and when undeclared
//! bytes are not valid UTF-8, windows-1252 (the web's legacy default).
//! Unknown labels fall through to the next source. Malformed sequences
//! become U+FFFD; decoding never fails.

use encoding_rs::{Encoding, UTF_8};
use std::borrow::Cow;

/// The decoded text and the encoding that was used.
pub struct Decoded<'a> {
    pub text: Cow<'a, str>,
    pub encoding: &'static Encoding,
    /// True when malformed byte sequences were replaced.
    pub had_errors: bool,
}

/// How far into the body a `<meta>` charset declaration is looked for.
pub const PRESCAN_BYTES: usize = 4096;

/// Decodes a page's body: as UTF-8 when the source handed over text
/// (`Page::utf8`), else as `decode` does.
pub fn decode_page<'a>(page: &'a crate::input::page::Page<'_>) -> Decoded<'a> {
    if page.utf8 {
        let (text, had_errors) = UTF_8.decode_without_bom_handling(&page.body);
        return Decoded {
            text,
            encoding: UTF_8,
            had_errors,
        };
    }
    decode(&page.body, page.content_type.as_deref())
}

/// Decodes `body` following BOM → HTTP charset → meta charset → UTF-8.
pub fn decode<'a>(body: &'a [u8], content_type: Option<&str>) -> Decoded<'a> {
    let declared = Encoding::for_bom(body)
        .map(|(enc, _)| enc)
        .or_else(|| content_type.and_then(charset_param).and_then(label))
        .or_else(|| meta_charset(&body[..body.len().min(PRESCAN_BYTES)]));
    // `decode` sniffs the BOM again and strips it; it borrows when the input
    // is valid UTF-8 already, which is the common case.
    let (text, encoding, had_errors) = match declared {
        Some(enc) => enc.decode(body),
        None => match UTF_8.decode(body) {
            (_, _, true) => encoding_rs::WINDOWS_1252.decode(body),
            utf8 => utf8,
        },
    };
    Decoded {
        text,
        encoding,
        had_errors,
    }
}

/// True when the body is not text: the MIME Sniffing standard's "binary data
/// byte" test (control bytes other than TAB, LF, FF, CR, ESC) on the first
/// 1,024 bytes, allowing a few stray ones. UTF-16 with a BOM is text.
pub fn looks_binary(body: &[u8]) -> bool {
    if Encoding::for_bom(body).is_some() {
        return false;
    }
    let head = &body[..body.len().min(1024)];
    let binary = head
        .iter()
        .filter(|&&b| matches!(b, 0x00..=0x08 | 0x0B | 0x0E..=0x1A | 0x1C..=0x1F))
        .count();
    binary * 100 > head.len().max(1) * 2
}

fn label(name: &str) -> Option<&'static Encoding> {
    let enc = Encoding::for_label(
        name.trim()
            .trim_matches(|c| c == '"' || c == '\'')
            .as_bytes(),
    )?;
    // A page that declares UTF-16 in its bytes is really ASCII-compatible
    // (the declaration could be read); the standard says to use UTF-8 then.
    if enc == encoding_rs::UTF_16LE || enc == encoding_rs::UTF_16BE {
        return Some(UTF_8);
    }
    Some(enc)
}

/// The `charset=` parameter of a Content-Type value.
pub fn charset_param(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|param| {
        let (key, value) = param.split_once('=')?;
        key.trim()
            .eq_ignore_ascii_case("charset")
            .then_some(value.trim())
    })
}

/// `<meta charset=...>` or `<meta http-equiv=content-type content="...charset=...">`
/// in the head of the document. A byte-level scan: the document is not decoded yet.
fn meta_charset(head: &[u8]) -> Option<&'static Encoding> {
    let lower: Vec<u8> = head.to_ascii_lowercase();
    let mut from = 0;
    while let Some(pos) = find(&lower[from..], b"<meta") {
        let start = from + pos;
        let end = lower[start..]
            .iter()
            .position(|&b| b == b'>')
            .map_or(lower.len(), |e| start + e);
        let tag = &lower[start..end];
        if let Some(cs) = find(tag, b"charset") {
            let rest = &tag[cs + b"charset".len()..];
            let rest = trim_start(rest);
            if let Some(rest) = rest.strip_prefix(b"=") {
                let rest = trim_start(rest);
                let rest = rest
                    .strip_prefix(b"\"")
                    .or_else(|| rest.strip_prefix(b"'"))
                    .unwrap_or(rest);
                let value_end = rest
                    .iter()
                    .position(|&b| matches!(b, b'"' | b'\'' | b';' | b' ' | b'/' | b'>'))
                    .unwrap_or(rest.len());
                if let Some(enc) = std::str::from_utf8(&rest[..value_end]).ok().and_then(label) {
                    return Some(enc);
                }
            }
        }
        from = end;
    }
    None
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn trim_start(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|b| b.is_ascii_whitespace()).count();
    &s[n..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_handed_over_as_text_stays_utf8() {
        let body = "<meta charset=iso-8859-1><p>café</p>".as_bytes();
        let mut page = crate::input::page::Page::new("https://example.org/", body)
            .with_content_type("text/html; charset=ISO-8859-1");
        assert!(
            decode_page(&page).text.contains("cafÃ©"),
            "bytes: charset applies"
        );
        page.utf8 = true;
        let d = decode_page(&page);
        assert_eq!(d.encoding, UTF_8);
        assert!(d.text.contains("café") && !d.had_errors);
    }

    #[test]
    fn http_charset_wins_over_meta() {
        let body = b"<meta charset=utf-8><p>caf\xe9</p>";
        let d = decode(body, Some("text/html; charset=ISO-8859-1"));
        assert_eq!(d.encoding.name(), "windows-1252");
        assert!(d.text.contains("café"));
    }

    #[test]
    fn meta_charset_used_without_header() {
        let body = b"<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1251\"></head>\xcf\xf0\xe8\xe2\xe5\xf2";
        let d = decode(body, None);
        assert_eq!(d.encoding.name(), "windows-1251");
        assert!(d.text.ends_with("Привет"));
    }

    #[test]
    fn binary_bodies_are_recognised() {
        assert!(looks_binary(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00"));
        assert!(!looks_binary("<p>ünïcödé text</p>".as_bytes()));
        assert!(!looks_binary(b"\xff\xfe<\x00p\x00>\x00"));
    }

    #[test]
    fn bom_wins_over_everything() {
        let body = b"\xef\xbb\xbf<p>\xc3\xa9</p>";
        let d = decode(body, Some("text/html; charset=latin1"));
        assert_eq!(d.encoding, UTF_8);
        assert_eq!(d.text, "<p>é</p>");
    }

    #[test]
    fn valid_utf8_is_borrowed_as_it_stands_and_anything_else_is_not() {
        // Longer than a validator's word-at-a-time steps, a multi-byte
        // character, and a broken byte at every place in it.
        let text = format!("<p>{}é{}</p>", "a".repeat(70), "ü".repeat(40));
        let d = decode(text.as_bytes(), None);
        assert!(matches!(d.text, Cow::Borrowed(_)) && !d.had_errors);
        assert_eq!((d.text.as_ref(), d.encoding), (text.as_str(), UTF_8));
        for at in 0..text.len() {
            let mut body = text.clone().into_bytes();
            body[at] = 0xff;
            let d = decode(&body, None);
            assert_eq!(d.encoding, encoding_rs::WINDOWS_1252, "{at}");
            let mut page = crate::input::page::Page::new("https://example.org/", &body);
            page.utf8 = true;
            let d = decode_page(&page);
            assert!(d.had_errors && d.text.contains('\u{FFFD}'), "{at}");
        }
        // Handed over as text, a byte-order mark stays a character.
        let mut page =
            crate::input::page::Page::new("https://example.org/", "\u{feff}<p>x</p>".as_bytes());
        page.utf8 = true;
        assert_eq!(decode_page(&page).text, "\u{feff}<p>x</p>");
    }

    #[test]
    fn undeclared_non_utf8_is_windows_1252() {
        let d = decode(b"<p>caf\xe9</p>", Some("text/html; charset=x-no-such"));
        assert_eq!(d.encoding, encoding_rs::WINDOWS_1252);
        assert_eq!(d.text, "<p>café</p>");
        // Declared UTF-8 with bad bytes: replacement characters, flagged.
        let d = decode(b"<p>ok \xff</p>", Some("text/html; charset=utf-8"));
        assert!(d.had_errors && d.text.contains('\u{FFFD}'));
    }
}
