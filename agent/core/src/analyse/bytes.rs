//! Byte searches eight bytes at a time, for the short runs of a page
//! (attribute values, class names, a text node's words) where memchr's
//! vector set-up costs more than the search itself.
//!
//! The masks are exact per byte: a byte's test never borrows from or
//! carries into its neighbour (the well-known `(x - 0x01…) & !x & 0x80…`
//! does, and can mark a byte after a true match), so the lowest marked byte
//! and every other mark can be trusted.

use memchr::memchr;

pub(super) const ONES: u64 = 0x0101_0101_0101_0101;
pub(super) const HIGH: u64 = ONES * 0x80;
const LOW7: u64 = ONES * 0x7F;

/// The high bit of each byte of `w` that equals `b`.
#[inline]
pub(super) fn equal(w: u64, b: u8) -> u64 {
    let x = w ^ (ONES * b as u64);
    !(((x & LOW7) + LOW7) | x) & HIGH
}

/// The high bit of each byte of `w` below 0x20 or from 0x80.
#[inline]
pub(super) fn outside_printable(w: u64) -> u64 {
    (!(((w & LOW7) + ONES * 0x60) | w) | w) & HIGH
}

/// Eight bytes of `b` from `at`, if there are eight.
#[inline]
pub(super) fn word_at(b: &[u8], at: usize) -> Option<u64> {
    let chunk = b.get(at..at + 8)?;
    Some(u64::from_le_bytes(chunk.try_into().expect("eight bytes")))
}

/// The first `needle` in `hay`: the first sixteen bytes by word, the rest
/// by memchr.
#[inline]
pub(super) fn find_short(needle: u8, hay: &[u8]) -> Option<usize> {
    for at in [0, 8] {
        let Some(w) = word_at(hay, at) else {
            return memchr(needle, &hay[at..]).map(|k| at + k);
        };
        let found = equal(w, needle);
        if found != 0 {
            return Some(at + found.trailing_zeros() as usize / 8);
        }
    }
    memchr(needle, &hay[16..]).map(|k| 16 + k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_mark_exactly_the_bytes_they_name() {
        for b in 0..=255u8 {
            for other in [
                0u8,
                0x1f,
                0x20,
                0x21,
                0x7f,
                0x80,
                0xff,
                b.wrapping_add(1),
                b.wrapping_sub(1),
            ] {
                let w = u64::from_le_bytes([other, b, other, b, other, other, b, other]);
                let mark = |hit: bool, i: u32| (hit as u64) << (8 * i + 7);
                let expect_eq: u64 = (0..8)
                    .map(|i| mark(w.to_le_bytes()[i as usize] == 0x41, i))
                    .sum();
                assert_eq!(equal(w, 0x41), expect_eq, "{w:x}");
                let expect_out: u64 = (0..8)
                    .map(|i| mark(!(0x20..0x80).contains(&w.to_le_bytes()[i as usize]), i))
                    .sum();
                assert_eq!(outside_printable(w), expect_out, "{w:x}");
            }
        }
    }

    #[test]
    fn short_searches_find_what_memchr_finds() {
        for len in 0..40 {
            for at in 0..=len {
                let mut hay = vec![b'x'; len];
                if at < len {
                    hay[at] = b'"';
                }
                // A byte one above and a high byte, which a loose mask
                // would take for the needle.
                if at + 1 < len {
                    hay[at + 1] = b'#';
                }
                if at > 0 {
                    hay[at - 1] = 0xa2;
                }
                assert_eq!(find_short(b'"', &hay), memchr(b'"', &hay), "{hay:?}");
            }
        }
    }
}
