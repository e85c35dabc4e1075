//! `char::is_alphabetic` and `char::is_alphanumeric`, answered by a bitmap
//! for the Basic Multilingual Plane.
//!
//! Why: std answers a character past ASCII by a search of its compressed
//! Unicode tables (`unicode_data::alphabetic::lookup_slow`), tens of
//! instructions a character, and language detection, shingles and word
//! counts ask it of every letter of any text that is not English. A bit a
//! character of the plane is 8 KB a question, one load where std searched.
//! The bitmaps are made at first use from std's own answers, so the answers
//! are std's (a test asks every character); past the plane std is asked.

use std::sync::LazyLock;

/// Characters below U+10000: every living script's letters.
const PLANE: usize = 0x1_0000;

struct Bitmaps {
    alphabetic: [u64; PLANE / 64],
    alphanumeric: [u64; PLANE / 64],
}

static BITMAPS: LazyLock<Box<Bitmaps>> = LazyLock::new(|| {
    let mut b = Box::new(Bitmaps {
        alphabetic: [0; PLANE / 64],
        alphanumeric: [0; PLANE / 64],
    });
    for c in (0..PLANE as u32).filter_map(char::from_u32) {
        let (word, bit) = (c as usize / 64, 1u64 << (c as usize % 64));
        if c.is_alphabetic() {
            b.alphabetic[word] |= bit;
        }
        if c.is_alphanumeric() {
            b.alphanumeric[word] |= bit;
        }
    }
    b
});

/// std's answer below U+0080 (a comparison there) and past the plane; the
/// bitmap's between.
#[inline(always)]
fn answer(c: char, bits: impl Fn(&Bitmaps) -> &[u64; PLANE / 64], std: fn(char) -> bool) -> bool {
    let u = c as usize;
    if (0x80..PLANE).contains(&u) {
        bits(&BITMAPS)[u / 64] >> (u % 64) & 1 != 0
    } else {
        std(c)
    }
}

/// `c.is_alphabetic()`.
#[inline]
pub fn is_alphabetic(c: char) -> bool {
    answer(c, |b| &b.alphabetic, char::is_alphabetic)
}

/// `c.is_alphanumeric()`.
#[inline]
pub fn is_alphanumeric(c: char) -> bool {
    answer(c, |b| &b.alphanumeric, char::is_alphanumeric)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_character_is_answered_as_std_answers_it() {
        for c in (0..=char::MAX as u32).filter_map(char::from_u32) {
            assert_eq!(is_alphabetic(c), c.is_alphabetic(), "{:04X}", c as u32);
            assert_eq!(is_alphanumeric(c), c.is_alphanumeric(), "{:04X}", c as u32);
        }
    }
}
