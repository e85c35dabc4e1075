//! Scoring a sample against the declarations: each language's trigram
//! costs (naive Bayes, additive smoothing), a group's costs as dense rows,
//! and a sample's totals over a group — one hash lookup and one row added
//! per trigram, as the profiles score.

use super::trigrams::trigrams;
use super::Language;
use rustc_hash::FxHashMap;
use std::sync::OnceLock;

/// Additive smoothing of the declarations' trigram counts: a declaration is
/// about 10,000 trigrams, so most of a page's trigrams are not in it, in
/// the decided language as in its relatives.
const ALPHA: f64 = 0.5;
/// The vocabulary the smoothing spreads over.
const VOCABULARY: f64 = 20_000.0;

/// A language's trigram costs, as its declaration gives them.
#[derive(Debug)]
pub(super) struct Profile {
    /// What a trigram outside the declaration costs (centinats).
    floor: i64,
    /// Its trigrams' costs less `floor` (centinats, < 0).
    costs: FxHashMap<u64, i16>,
}

impl Profile {
    /// A declaration's trigram costs under additive smoothing.
    pub(super) fn of(declaration: &str) -> Profile {
        let mut counts: FxHashMap<u64, u32> = FxHashMap::default();
        let mut n = 0u32;
        trigrams(declaration, |key| {
            *counts.entry(key).or_default() += 1;
            n += 1;
        });
        let floor = (f64::from(n) + ALPHA * VOCABULARY).ln() - ALPHA.ln();
        let costs = counts
            .into_iter()
            .map(|(key, c)| {
                // cost − floor = ln α − ln(c + α), in centinats.
                let delta = 100.0 * (ALPHA.ln() - (f64::from(c) + ALPHA).ln());
                (key, delta.round().max(f64::from(i16::MIN)) as i16)
            })
            .collect();
        Profile {
            floor: (100.0 * floor).round() as i64,
            costs,
        }
    }
}

/// Languages that compete on one page, and their table once built.
pub(super) struct Group {
    /// Indices into `Declarations::langs`.
    pub(super) members: Vec<usize>,
    table: OnceLock<Table>,
}

/// A group's profiles as dense rows (as `profiles::Table`): per trigram, what
/// it adds to each member's cost.
struct Table {
    floors: Vec<i64>,
    index: FxHashMap<u64, u32>,
    rows: Vec<i16>,
}

/// The most trigrams of a sample scored (its first ones): a row's sum then
/// fits an i32 (each cost is above -32,768 centinats), whatever
/// `language.sample_bytes` lets in — far more than any verdict needs.
pub(super) const MAX_TRIGRAMS: usize = 60_000;

/// The per-language totals of one sample over a group (lower: likelier).
pub(super) struct Totals {
    totals: Vec<i64>,
    pub(super) trigrams: usize,
}

impl Totals {
    /// How much likelier `better` is than `worse`, in nats per trigram.
    pub(super) fn margin(&self, worse: i64, better: i64) -> f64 {
        (worse - better) as f64 / 100.0 / self.trigrams as f64
    }
}

impl std::ops::Deref for Totals {
    type Target = [i64];
    fn deref(&self) -> &[i64] {
        &self.totals
    }
}

impl Group {
    pub(super) fn new(members: Vec<usize>) -> Group {
        Group {
            members,
            table: OnceLock::new(),
        }
    }

    fn table(&self, langs: &[Language]) -> &Table {
        self.table.get_or_init(|| {
            let profiles: Vec<&Profile> =
                self.members.iter().map(|&m| langs[m].profile()).collect();
            let width = profiles.len();
            let mut keys: Vec<u64> = profiles
                .iter()
                .flat_map(|p| p.costs.keys().copied())
                .collect();
            // Sorted: the same table whatever order the hash maps give.
            keys.sort_unstable();
            keys.dedup();
            let mut index = FxHashMap::default();
            let mut rows = vec![0i16; keys.len() * width];
            for (r, key) in keys.into_iter().enumerate() {
                index.insert(key, r as u32);
                for (k, p) in profiles.iter().enumerate() {
                    rows[r * width + k] = p.costs.get(&key).copied().unwrap_or(0);
                }
            }
            Table {
                floors: profiles.iter().map(|p| p.floor).collect(),
                index,
                rows,
            }
        })
    }

    pub(super) fn totals(&self, langs: &[Language], sample: &str) -> Option<Totals> {
        let table = self.table(langs);
        let width = self.members.len();
        // i32 sums add a row in a quarter of the instructions i64 ones take
        // (four lanes to a vector, not two) and cannot overflow: a sample is
        // at most a few thousand trigrams of at most 32,768 centinats each.
        // The keys first, then their rows looked up, then added: in short
        // loops with nothing between them each probe's likely cache miss
        // overlaps the others', as the profiles' `Sums` do.
        let mut keys = Vec::with_capacity(sample.len().min(MAX_TRIGRAMS));
        trigrams(sample, |key| {
            if keys.len() < MAX_TRIGRAMS {
                keys.push(key);
            }
        });
        let n = keys.len();
        if n == 0 {
            return None;
        }
        let rows: Vec<u32> = keys
            .iter()
            .filter_map(|k| table.index.get(k).copied())
            .collect();
        let mut sums = vec![0i32; width];
        for r in rows {
            let row = &table.rows[r as usize * width..(r as usize + 1) * width];
            for (s, &c) in sums.iter_mut().zip(row) {
                *s += i32::from(c);
            }
        }
        let totals = sums
            .iter()
            .zip(&table.floors)
            .map(|(&s, f)| i64::from(s) + n as i64 * f)
            .collect();
        Some(Totals {
            totals,
            trigrams: n,
        })
    }
}
