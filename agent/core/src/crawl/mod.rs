//! The analyses of a whole crawl, beside the per-page path (the rest of the
//! crate): they read many pages' verdicts or fingerprints and say something
//! of the crawl — pages with one hidden style (`styles`), pages stitched from
//! others (`quilts`), spun content (`spun`), chunks common across sites
//! (`discovery`, blind sets), an expert corpus for `labels build` (`corpus`),
//! the scan report (`report`); with the tools they share (`components`:
//! union-find, `sort`: external sort in bounded memory). Nothing on the
//! per-page path imports them.

pub mod components;
pub mod corpus;
pub mod discovery;
pub mod quilts;
pub mod report;
pub mod sort;
pub mod spun;
pub mod styles;
