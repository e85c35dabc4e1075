//! Pages built from `../shared/data/langid` (lingua-rs's test sentences of 75
//! languages, one file per language named by its ISO 639-1 code), shared by
//! `bench/languages.rs` and `tests/languages.rs` so both judge the same pages.

use std::path::Path;

/// ISO 639-1 file names → the ISO 639-3 codes crawlsieve reports.
pub const CODES: &[(&str, &str)] = &[
    ("af", "afr"),
    ("ar", "ara"),
    ("az", "aze"),
    ("be", "bel"),
    ("bg", "bul"),
    ("bn", "ben"),
    ("bs", "bos"),
    ("ca", "cat"),
    ("cs", "ces"),
    ("cy", "cym"),
    ("da", "dan"),
    ("de", "deu"),
    ("el", "ell"),
    ("en", "eng"),
    ("eo", "epo"),
    ("es", "spa"),
    ("et", "est"),
    ("eu", "eus"),
    ("fa", "pes"),
    ("fi", "fin"),
    ("fr", "fra"),
    ("ga", "gle"),
    ("gu", "guj"),
    ("he", "heb"),
    ("hi", "hin"),
    ("hr", "hrv"),
    ("hu", "hun"),
    ("hy", "hye"),
    ("id", "ind"),
    ("is", "isl"),
    ("it", "ita"),
    ("ja", "jpn"),
    ("ka", "kat"),
    ("kk", "kaz"),
    ("ko", "kor"),
    ("la", "lat"),
    ("lg", "lug"),
    ("lt", "lit"),
    ("lv", "lav"),
    ("mi", "mri"),
    ("mk", "mkd"),
    ("mn", "mon"),
    ("mr", "mar"),
    ("ms", "msa"),
    ("nb", "nob"),
    ("nl", "nld"),
    ("nn", "nno"),
    ("pa", "pan"),
    ("pl", "pol"),
    ("pt", "por"),
    ("ro", "ron"),
    ("ru", "rus"),
    ("sk", "slk"),
    ("sl", "slv"),
    ("sn", "sna"),
    ("so", "som"),
    ("sq", "sqi"),
    ("sr", "srp"),
    ("st", "sot"),
    ("sv", "swe"),
    ("sw", "swa"),
    ("ta", "tam"),
    ("te", "tel"),
    ("th", "tha"),
    ("tl", "tgl"),
    ("tn", "tsn"),
    ("tr", "tur"),
    ("ts", "tso"),
    ("uk", "ukr"),
    ("ur", "urd"),
    ("vi", "vie"),
    ("xh", "xho"),
    ("yo", "yor"),
    ("zh", "cmn"),
    ("zu", "zul"),
];

/// Pages of at least `size` bytes of consecutive sentences of each language,
/// with the code crawlsieve should give them. `half`: `dev` (the first half of
/// each file, where `language.min_margin` was chosen), `test` (the held-out
/// second half) or anything else for all.
pub fn pages(dir: &Path, size: usize, half: &str) -> std::io::Result<Vec<(&'static str, String)>> {
    let mut out = Vec::new();
    for &(file, code) in CODES {
        let text = std::fs::read_to_string(dir.join(format!("{file}.txt")))?;
        let lines: Vec<&str> = text.lines().collect();
        let mid = lines.len() / 2;
        let lines = match half {
            "dev" => &lines[..mid],
            "test" => &lines[mid..],
            _ => &lines[..],
        };
        let mut page = String::new();
        for line in lines {
            if !page.is_empty() {
                page.push(' ');
            }
            page.push_str(line.trim());
            if page.len() >= size {
                out.push((code, std::mem::take(&mut page)));
            }
        }
    }
    Ok(out)
}
