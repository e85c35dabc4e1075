//! Choosing the main content from the one-pass analysis.

pub mod plateau;

use crate::analyse::{Analysis, IN_CONTENT, IN_LINK};

/// The page's main content: paragraphs as byte ranges into `Analysis::text`.
#[derive(Debug, Default, Clone)]
pub struct Content {
    pub paragraphs: Vec<(u32, u32)>,
    /// Words of the content.
    pub words: u32,
    /// `<a href>` elements inside the content.
    pub links: u32,
}

impl Content {
    /// The paragraphs' text.
    pub fn paragraphs<'a>(&'a self, analysis: &'a Analysis) -> impl Iterator<Item = &'a str> + 'a {
        self.paragraphs.iter().map(|&(s, e)| analysis.slice(s, e))
    }

    /// The content as one text, paragraphs separated by `\n`.
    pub fn text(&self, analysis: &Analysis) -> String {
        let mut out = String::new();
        for (i, p) in self.paragraphs(analysis).enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(p);
        }
        out
    }
}

/// The content of a page: with a content-tag rule that matched, the text
/// inside the selected element(s); otherwise the tag plateau.
pub fn content(analysis: &Analysis) -> Content {
    let segments = &analysis.segments;
    if analysis.content_tag == Some(true) {
        return collect(
            analysis,
            segments
                .iter()
                .enumerate()
                .filter(|(_, s)| s.flags & IN_CONTENT != 0)
                .map(|(i, _)| i),
        );
    }
    match plateau::plateau(segments) {
        Some((a, b)) => collect(analysis, a..=b),
        None => Content::default(),
    }
}

/// Groups the chosen segments into paragraphs (consecutive segments of one block).
fn collect(analysis: &Analysis, chosen: impl Iterator<Item = usize>) -> Content {
    let segments = &analysis.segments;
    let mut content = Content::default();
    let mut current: Option<(u32, u32, u32)> = None; // (block, start, end)
    let mut first = true;
    for i in chosen {
        let seg = &segments[i];
        content.words += seg.words;
        // Links are counted at their first text: the first chosen segment's
        // `links_before` lies outside unless that segment is link text itself.
        content.links += if !first {
            seg.links_before
        } else if seg.flags & IN_LINK != 0 {
            seg.links_before.min(1)
        } else {
            0
        };
        first = false;
        match &mut current {
            Some((block, _, end)) if *block == seg.block => *end = seg.end,
            _ => {
                if let Some((_, s, e)) = current.take() {
                    content.paragraphs.push((s, e));
                }
                current = Some((seg.block, seg.start, seg.end));
            }
        }
    }
    if let Some((_, s, e)) = current {
        content.paragraphs.push((s, e));
    }
    content
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::analyse;

    #[test]
    fn article_between_navigation_and_footer() {
        let html = r#"<html><body>
          <ul class=nav><li><a href=/>Home</a></li><li><a href=/a>About</a></li><li><a href=/b>Blog</a></li></ul>
          <div class=article><h1>A title worth reading</h1>
          <p>The first paragraph of the article has a good number of words in it, and they run on.</p>
          <p>The second paragraph, with <a href="/ref">one link</a>, keeps going for a while too.</p></div>
          <div class=footer><a href=/t>Terms</a> | <a href=/p>Privacy</a> | <a href=/c>Contact</a></div>
          </body></html>"#;
        let a = analyse(html, None).unwrap();
        let c = content(&a);
        let paras: Vec<_> = c.paragraphs(&a).collect();
        assert_eq!(paras.len(), 3, "{paras:?}");
        assert_eq!(paras[0], "A title worth reading");
        assert!(paras[2].starts_with("The second paragraph, with one link"));
        assert_eq!(c.links, 1);
    }
}
