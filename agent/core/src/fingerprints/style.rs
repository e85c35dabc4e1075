//! A page's hidden-style fingerprint (Urvoy et al., seed 003, §2.3 and §3.3).
//!
//! Pages made by the same template or script share their markup, however
//! different their words. The fingerprint samples the page's HTML *noise* —
//! the page with the letters and digits of its text taken out, markup kept —
//! so that two pages of one generator agree in many of its 128 dimensions and
//! two unrelated pages in almost none.
//!
//! # Specification, version 1
//!
//! The fingerprint must compare across machines, versions and parsers (a page
//! with a content-tag rule is parsed by lol_html, the others by our own
//! tokenizer), so the noise is defined on the page's bytes, not on a parse:
//!
//! 1. **Input**: the page decoded to UTF-8 (as the pipeline decodes it), after
//!    the `input.max_page_bytes` cap.
//! 2. **Noise**, byte by byte, with two states. *Text* (the start): a `<`
//!    followed by an ASCII letter, `/`, `!` or `?` is kept and enters *markup*;
//!    an ASCII letter or digit, or any byte ≥ 0x80 (every non-ASCII character),
//!    is left out; every other byte (spaces, punctuation, a lone `<`) is kept.
//!    *Markup*: every byte is kept; a `>` is kept and returns to *text*. So tag
//!    names, attributes, comments and the punctuation and spacing of the text
//!    remain, and the words go (§3: the "noise" of the page).
//! 3. **Parts**: every window of [`N`] = 32 consecutive noise bytes (the
//!    paper's n = 32). A noise shorter than 32 bytes has none.
//! 4. **Window hash** (a cyclic polynomial, "buzhash"): with `G` = the first
//!    256 outputs of SplitMix64 from seed [`GEAR_SEED`], the window ending at
//!    noise byte `t` hashes to `H_t = XOR_{j=0..31} rotl64(G[x_{t−j}], j)`,
//!    computed incrementally as `rotl(H, 1) ^ G[in] ^ rotl(G[out], 32)`.
//! 5. **Pre-hash** `h = (H_t ^ (H_t >> 32)) · 0x9E3779B97F4A7C15 mod 2⁶⁴`
//!    (Fibonacci hashing); its dimension is its top 7 bits, `i = h >> 57`
//!    (the pre-hashing partition of §2.3.1: each part falls in exactly one
//!    of the 128 dimensions).
//! 6. **Ordering** of dimension `i`: by `h` itself. The paper's per-dimension
//!    permutations σ_i (a bit shuffle after an XOR mask) make one hash act as
//!    128 independent orderings; with the pre-hash partition the dimensions
//!    hold disjoint sets of parts, so one good hash already orders each
//!    independently, and σ_i = identity (mask 0, no shuffle) costs nothing.
//! 7. **Fingerprint** (Procedure 1): `V[i]` = the least `h` over the parts in
//!    dimension `i`. Stored: the 32 bits below the dimension bits,
//!    `(V[i] >> 25) mod 2³²`, with 0 meaning "no part fell in this
//!    dimension" (a real minimum whose bits there are 0 is stored as 1).
//! 8. **Encoding** (`style_fp` in a verdict): the 128 stored values as
//!    little-endian `u32`, 512 bytes, in unpadded URL-safe base64 (683
//!    characters).
//!
//! **Similarity** (`Sim_b`, §2.3.1): the number of dimensions where both
//! fingerprints hold the same non-zero value, out of 128. Empty dimensions
//! never match, which lowers the estimate for small pages, as the paper
//! intends: style says little about a page with little markup.
//!
//! Cost: one pass over the page, a few operations a byte, no allocation.

use crate::fingerprints::splitmix64;
use data_encoding::BASE64URL_NOPAD;

/// Bumped whenever the specification above changes.
pub const STYLE_VERSION: u8 = 1;
/// Dimensions (the paper's m).
pub const M: usize = 128;
/// Bytes per part (the paper's n).
pub const N: usize = 32;
/// Seed of the window hash's byte table.
pub const GEAR_SEED: u64 = 0x7374_796c_6566_7031; // "stylefp1"

/// A page's fingerprint: 128 dimensions, 0 = empty.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Fingerprint(pub [u32; M]);

impl std::fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Fingerprint({}/{M} filled)", self.filled())
    }
}

impl Fingerprint {
    /// Dimensions that hold a value.
    pub fn filled(&self) -> u32 {
        self.0.iter().filter(|&&v| v != 0).count() as u32
    }

    /// `Sim_b` as a count: dimensions where both hold the same value (0..=128).
    #[inline]
    pub fn matched(&self, other: &Fingerprint) -> u32 {
        self.0
            .iter()
            .zip(other.0.iter())
            .filter(|(a, b)| **a != 0 && a == b)
            .count() as u32
    }

    /// `Sim_b` as a fraction of the 128 dimensions.
    pub fn similarity(&self, other: &Fingerprint) -> f64 {
        self.matched(other) as f64 / M as f64
    }

    /// The 512 bytes of the encoding (little-endian `u32`s).
    pub fn to_bytes(&self) -> [u8; M * 4] {
        let mut out = [0u8; M * 4];
        for (i, v) in self.0.iter().enumerate() {
            out[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
        }
        out
    }

    pub fn from_bytes(bytes: &[u8]) -> Option<Fingerprint> {
        if bytes.len() != M * 4 {
            return None;
        }
        let mut dims = [0u32; M];
        for (i, d) in dims.iter_mut().enumerate() {
            *d = u32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().ok()?);
        }
        Some(Fingerprint(dims))
    }

    /// The verdict's `style_fp`.
    pub fn encode(&self) -> String {
        BASE64URL_NOPAD.encode(&self.to_bytes())
    }

    pub fn decode(s: &str) -> Result<Fingerprint, FingerprintError> {
        let bytes = BASE64URL_NOPAD
            .decode(s.as_bytes())
            .map_err(FingerprintError::Base64)?;
        Fingerprint::from_bytes(&bytes).ok_or(FingerprintError::Length(bytes.len()))
    }
}

/// A verdict's `style_fp` that is not a fingerprint.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FingerprintError {
    #[error("style_fp is not unpadded URL-safe base64: {0}")]
    Base64(data_encoding::DecodeError),
    #[error("style_fp holds {0} bytes, not {len}", len = M * 4)]
    Length(usize),
}

/// The window hash's byte tables (step 4), made once.
struct Gear {
    /// `G[b]`: what a byte entering the window brings.
    enter: [u64; 256],
    /// `rotl(G[b], 32)`: what a byte leaving the window takes out.
    leave: [u64; 256],
}

fn gear() -> &'static Gear {
    static GEAR: std::sync::OnceLock<Gear> = std::sync::OnceLock::new();
    GEAR.get_or_init(|| {
        let mut s = GEAR_SEED;
        let mut enter = [0u64; 256];
        for g in enter.iter_mut() {
            *g = splitmix64(&mut s);
        }
        let mut leave = [0u64; 256];
        for (o, g) in leave.iter_mut().zip(enter.iter()) {
            *o = g.rotate_left(N as u32);
        }
        Gear { enter, leave }
    })
}

/// Whether a byte after `<` opens markup.
#[inline]
fn opens_markup(b: u8) -> bool {
    b.is_ascii_alphabetic() || matches!(b, b'/' | b'!' | b'?')
}

/// Bytes of text that are noise: not ASCII letters or digits, not ≥ 0x80.
const TEXT_KEEPS: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x80 {
        t[b] = !(b as u8).is_ascii_alphanumeric();
        b += 1;
    }
    t
};

/// Appends the page's noise (specification, step 2) to `out`.
pub fn push_noise(page: &[u8], out: &mut Vec<u8>) {
    out.reserve(page.len());
    let mut i = 0;
    while i < page.len() {
        // Text up to the next `<`: keep what the table keeps, without a branch a byte.
        let end = memchr::memchr(b'<', &page[i..]).map_or(page.len(), |k| i + k);
        let start = out.len();
        out.resize(start + (end - i), 0);
        let mut n = start;
        for &b in &page[i..end] {
            out[n] = b;
            n += TEXT_KEEPS[b as usize] as usize;
        }
        out.truncate(n);
        if end == page.len() {
            break;
        }
        // `<` is kept; markup runs to the next `>`, kept whole.
        if page.get(end + 1).is_some_and(|&b| opens_markup(b)) {
            let close = memchr::memchr(b'>', &page[end + 1..]).map_or(page.len(), |k| end + 2 + k);
            out.extend_from_slice(&page[end..close]);
            i = close;
        } else {
            out.push(b'<');
            i = end + 1;
        }
    }
}

/// The page's noise as a string of bytes.
pub fn noise(page: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    push_noise(page, &mut out);
    out
}

/// Calls `f` with the pre-hash of every part (specification, steps 3–5).
#[inline]
pub fn for_each_part(page: &[u8], mut f: impl FnMut(u64)) {
    // The noise first, into a buffer the thread reuses, then the rolling
    // hash over it: two tight loops run faster than one that does both.
    thread_local! {
        static NOISE: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    NOISE.with(|buffer| {
        let mut noise = buffer.borrow_mut();
        noise.clear();
        push_noise(page, &mut noise);
        parts_of_noise(&noise, &mut f);
        if noise.capacity() > 1 << 22 {
            *noise = Vec::new();
        }
    });
}

#[inline]
fn parts_of_noise(noise: &[u8], f: &mut impl FnMut(u64)) {
    if noise.len() < N {
        return;
    }
    let g = gear();
    let mut h = 0u64;
    for &b in &noise[..N] {
        h = h.rotate_left(1) ^ g.enter[b as usize];
    }
    f(prehash(h));
    for (&b, &out) in noise[N..].iter().zip(noise.iter()) {
        h = h.rotate_left(1) ^ g.enter[b as usize] ^ g.leave[out as usize];
        f(prehash(h));
    }
}

/// Step 5: Fibonacci hashing after folding the high half in.
#[inline(always)]
fn prehash(h: u64) -> u64 {
    (h ^ (h >> 32)).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// The dimension of a pre-hash: its top 7 bits.
#[inline(always)]
pub fn dimension(h: u64) -> usize {
    (h >> 57) as usize
}

/// The fingerprint of a page (specification, steps 1–7).
pub fn fingerprint(page: &[u8]) -> Fingerprint {
    let mut v = [u64::MAX; M];
    let mut filled = 0u128;
    for_each_part(page, |h| {
        let i = dimension(h);
        if h < v[i] {
            v[i] = h;
        }
        filled |= 1 << i;
    });
    let mut dims = [0u32; M];
    for (i, d) in dims.iter_mut().enumerate() {
        if filled & (1 << i) != 0 {
            *d = (((v[i] >> 25) & 0xffff_ffff) as u32).max(1);
        }
    }
    Fingerprint(dims)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_keeps_markup_and_drops_words() {
        let page = br#"<p class="x">Hello, world! 3 < 4 &amp; ok</p><!-- c -->"#;
        assert_eq!(
            String::from_utf8(noise(page)).unwrap(),
            r#"<p class="x">, !  <  &; </p><!-- c -->"#
        );
        // Non-ASCII letters go too; a lone `<` is text.
        assert_eq!(noise("é, ü< x".as_bytes()), b", < ".to_vec());
    }

    /// Step 2 of the specification as written, a byte at a time.
    fn noise_as_specified(page: &[u8]) -> Vec<u8> {
        let (mut out, mut in_markup) = (Vec::new(), false);
        for (i, &b) in page.iter().enumerate() {
            if in_markup {
                out.push(b);
                in_markup = b != b'>';
            } else if b == b'<' {
                out.push(b);
                in_markup = page.get(i + 1).is_some_and(|&n| opens_markup(n));
            } else if !(b.is_ascii_alphanumeric() || b >= 0x80) {
                out.push(b);
            }
        }
        out
    }

    #[test]
    fn noise_is_the_specified_one() {
        let mut rng = 7u64;
        let alphabet = b"<>/!?ab Z9 ,.&;\"'=-\n\xc3\xa9";
        for len in [0usize, 1, 2, 31, 32, 33, 500, 5000] {
            for _ in 0..50 {
                let page: Vec<u8> = (0..len)
                    .map(|_| alphabet[(splitmix64(&mut rng) % alphabet.len() as u64) as usize])
                    .collect();
                assert_eq!(
                    noise(&page),
                    noise_as_specified(&page),
                    "{:?}",
                    String::from_utf8_lossy(&page)
                );
            }
        }
        for page in [
            &b"<"[..],
            b"<a",
            b"a<",
            b"<<a>",
            b"x < y > z",
            b"<!-- >< -->",
            b"</",
            b"<?x",
        ] {
            assert_eq!(noise(page), noise_as_specified(page));
        }
    }

    #[test]
    fn the_window_hash_is_the_rolling_one() {
        // The incremental hash equals the definition on every window.
        let page =
            br#"<div class="a"><p>Some text, here.</p><span>and more</span></div>"#.repeat(3);
        let noise = noise(&page);
        let g = gear();
        let mut parts = Vec::new();
        for_each_part(&page, |h| parts.push(h));
        assert_eq!(parts.len(), noise.len() - N + 1);
        for (k, part) in parts.iter().enumerate() {
            let mut h = 0u64;
            for j in 0..N {
                h ^= g.enter[noise[k + N - 1 - j] as usize].rotate_left(j as u32);
            }
            assert_eq!(*part, prehash(h), "window {k}");
        }
    }

    #[test]
    fn version_1_is_pinned() {
        // Changing any step of the specification changes this value: then
        // bump STYLE_VERSION, because stored fingerprints stop comparing.
        let page = br#"<html><head><title>T</title></head><body><div id="main"><p>One two.</p><ul><li><a href="/a">A</a></li><li><a href="/b">B</a></li></ul></div></body></html>"#;
        let fp = fingerprint(page);
        assert_eq!(fp.filled(), 71);
        let digest = blake3::hash(&fp.to_bytes()).to_hex().to_string();
        assert_eq!(&digest[..16], "704e5dba2cf0f7be", "{digest}");
    }

    #[test]
    fn same_template_different_words_is_similar() {
        let template = |title: &str, body: &str| {
            format!(
                r#"<html><head><title>{title}</title><link rel="stylesheet" href="/s.css"></head><body><div class="nav"><a href="/">Home</a> | <a href="/about">About</a></div><div class="post"><h1>{title}</h1><p>{body}</p></div><div class="footer">(c) 2024 – all rights reserved.</div></body></html>"#
            )
        };
        let a = fingerprint(template("Cats", "Cats sleep a lot, and they purr.").as_bytes());
        let b = fingerprint(
            template("Stock markets", "Markets fell on Tuesday, traders said.").as_bytes(),
        );
        let other = fingerprint(
            br#"<!doctype html><html lang=en><meta charset=utf-8><body><main><article><header><h2>Cats</h2></header><section>Cats sleep a lot, and they purr.</section></article></main><script src="app.js"></script></body></html>"#,
        );
        assert!(a.matched(&b) > 35, "{}", a.matched(&b));
        assert!(a.matched(&other) < 20, "{}", a.matched(&other));
        assert_eq!(a.matched(&a), a.filled());
    }

    #[test]
    fn encoding_round_trips() {
        let fp = fingerprint(b"<div><p>text</p></div><div><p>more text, yes</p></div>");
        let s = fp.encode();
        assert_eq!(s.len(), 683);
        assert_eq!(Fingerprint::decode(&s).unwrap(), fp);
        assert!(Fingerprint::decode("AAAA").is_err());
        assert!(Fingerprint::decode("!!").is_err());
        assert_eq!(fingerprint(b"short").filled(), 0);
    }
}
