//! datatrove's n-gram counts on strings, for the tests of the counts and
//! of their bounds to be held to.

use crate::filters::words::chars;

/// datatrove's `find_all_duplicate`: the characters of n-grams (joined
/// without a separator) seen before, a repeat skipping its n words.
pub fn find_all_duplicate(words: &[&str], n: usize) -> usize {
    let (mut unique, mut total, mut i) = (std::collections::HashSet::new(), 0, 0);
    while i + n <= words.len() {
        let gram = words[i..i + n].concat();
        if unique.contains(&gram) {
            total += chars(&gram);
            i += n;
        } else {
            unique.insert(gram);
            i += 1;
        }
    }
    total
}

/// The most frequent n-gram's characters (joined by spaces) times its
/// count, and its count (of equal ones, the largest product).
pub fn most_common(words: &[&str], n: usize) -> (usize, u32) {
    let mut counts = std::collections::HashMap::new();
    for w in words.windows(n) {
        *counts.entry(w.join(" ")).or_insert(0u32) += 1;
    }
    counts
        .iter()
        .map(|(g, &c)| (chars(g) * c as usize, c))
        .max()
        .unwrap_or((0, 0))
}

/// Words that join alike in many ways (`alpha beta`, `alphabeta`), one of
/// them longer than a key.
pub const LONG_WORDS: [&str; 6] = [
    "alpha",
    "beta",
    "alphabeta",
    "betagamma",
    "gammadeltaepsilonzeta",
    "éé",
];
