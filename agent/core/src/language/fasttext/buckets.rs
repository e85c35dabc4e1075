//! The n-grams' rows, looked up by bucket: product-quantized codes beside
//! their keys in an open-addressed table, and fastText's hash and bucket.

/// lid.176's quantizer: 8 sub-vectors of 2 dimensions, 256 centroids each.
pub const NSUBQ: usize = 8;
pub const DSUB: usize = 2;

/// A row as the file holds it: a centroid per sub-vector, then its norm's.
/// Nine bytes where its 16 floats are 64: the rows are read at random, one
/// per n-gram, and 50,000 of them as floats (3.2 MB) miss the cache on
/// nearly every read; as codes they sit beside their key.
pub type Codes = [u8; NSUBQ + 1];

/// The surviving buckets: an open-addressed table, keyed by bucket, each
/// slot its row's codes beside the key (one cache line read per n-gram).
pub struct Buckets {
    slots: Vec<Slot>,
    shift: u32,
}

#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Slot {
    key: u32,
    codes: Codes,
}

const EMPTY: u32 = u32::MAX;

/// How many keys ahead a slot's line is asked for: enough lookups in
/// flight to cover a miss to L3 (tens of ns) at a few ns each.
pub const AHEAD: usize = 16;

impl Buckets {
    pub fn new(entries: &[(u32, Codes)]) -> Buckets {
        // Two thirds full at most: lid.176's 42,765 fit 65,536 slots, 1 MB,
        // a core's L2 here (twice that measured slower).
        let bits = (entries.len() * 2)
            .next_power_of_two()
            .trailing_zeros()
            .max(4);
        let mut t = Buckets {
            slots: vec![
                Slot {
                    key: EMPTY,
                    codes: [0; NSUBQ + 1],
                };
                1 << bits
            ],
            shift: 32 - bits,
        };
        for &(key, codes) in entries {
            let mut i = t.home(key);
            while t.slots[i].key != EMPTY {
                i = (i + 1) & (t.slots.len() - 1);
            }
            t.slots[i] = Slot { key, codes };
        }
        t
    }

    pub fn prefetch(&self, key: u32) {
        crate::prefetch::prefetch(&self.slots[self.home(key)]);
    }

    fn home(&self, key: u32) -> usize {
        (key.wrapping_mul(0x9E37_79B1) >> self.shift) as usize
    }

    pub fn get(&self, key: u32) -> Option<&Codes> {
        let mut i = self.home(key);
        loop {
            let slot = &self.slots[i];
            if slot.key == key {
                return Some(&slot.codes);
            }
            if slot.key == EMPTY {
                return None;
            }
            i = (i + 1) & (self.slots.len() - 1);
        }
    }
}

/// `x % d` for a fixed `d` without a division (Lemire, "Faster Remainder
/// by Direct Computation", 2019): one division per n-gram was a tenth of
/// the model's time.
pub struct Modulo {
    d: u32,
    m: u64,
}

impl Modulo {
    pub fn new(d: u32) -> Modulo {
        Modulo {
            d,
            m: (u64::MAX / u64::from(d)).wrapping_add(1),
        }
    }

    pub fn of(&self, x: u32) -> u32 {
        let low = self.m.wrapping_mul(u64::from(x));
        ((u128::from(low) * u128::from(self.d)) >> 64) as u32
    }
}

/// fastText's hash: FNV-1a over the bytes, each sign-extended as C++'s
/// `int8_t` is (it matters for every byte of UTF-8 past ASCII).
pub const FNV_BASIS: u32 = 2_166_136_261;

pub fn fnv_step(h: u32, c: u8) -> u32 {
    (h ^ (c as i8 as i32 as u32)).wrapping_mul(16_777_619)
}
