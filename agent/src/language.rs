//! Language of the content, with `whatlang` on a bounded prefix.

/// A detection result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Detected {
    /// ISO 639-3 code (`eng`, `deu`, ...), `None` when unknown.
    pub code: Option<&'static str>,
    /// whatlang's confidence, 0..1 (0 when nothing was detected).
    pub confidence: f64,
}

/// Detects the language of `text`, reading at most `sample_bytes` of it.
/// Unreliable detections and those below `min_confidence` are unknown.
pub fn detect(text: &str, sample_bytes: usize, min_confidence: f64) -> Detected {
    match whatlang::detect(crate::analyse::text::prefix(text, sample_bytes)) {
        Some(info) => Detected {
            code: (info.is_reliable() && info.confidence() >= min_confidence)
                .then(|| info.lang().code()),
            confidence: info.confidence(),
        },
        None => Detected {
            code: None,
            confidence: 0.0,
        },
    }
}

/// Whether `code` is a language whatlang knows (for validating the allow-list).
pub fn is_known(code: &str) -> bool {
    whatlang::Lang::from_code(code).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_and_caps() {
        let en = "The quick brown fox jumps over the lazy dog, and then it runs far away into the forest where nobody can find it again.";
        assert_eq!(detect(en, 4096, 0.0).code, Some("eng"));
        let de = "Der schnelle braune Fuchs springt über den faulen Hund und läuft dann weit weg in den Wald, wo ihn niemand mehr finden kann.";
        assert_eq!(detect(de, 4096, 0.0).code, Some("deu"));
        // Cut inside a multi-byte character: no panic.
        detect("ééééé", 3, 0.0);
        assert_eq!(detect("", 4096, 0.0).code, None);
        assert!(is_known("eng") && !is_known("xx"));
    }
}
