//! The content as Markdown: headings, list items, quotes, tables, code and
//! links, from the roles the HTML pass gave each paragraph and the link
//! ranges of the page's outline.
//!
//! The text is the same text `Content::text` gives (whitespace collapsed),
//! so Markdown adds structure, never words: a code block keeps its text but
//! not its line breaks.

use super::Content;
use crate::analyse::outline::Captured;
use crate::analyse::{Analysis, Role, IN_CODE};
use std::fmt::Write;

/// Renders `content` of `analysis` (analysed with its outline for links);
/// relative links are resolved against `base`, the page's URL.
pub fn markdown(analysis: &Analysis, content: &Content, base: &str) -> String {
    let base = url::Url::parse(base).ok();
    let mut out = String::new();
    let mut prev: Option<Role> = None;
    let mut table = Table::default();
    for &(s, e) in &content.paragraphs {
        let block = block_of(analysis, s);
        let role = block.map_or(Role::Plain, |b| b.role);
        let is_cell = matches!(role, Role::Cell | Role::HeaderCell);
        if is_cell {
            let row_start = block.is_some_and(|b| b.row && b.start == s);
            table.cell(inline(analysis, s, e, base.as_ref()), row_start);
            prev = Some(role);
            continue;
        }
        table.flush(&mut out);
        let text = inline(analysis, s, e, base.as_ref());
        match (prev, role) {
            (None, _) => {}
            (Some(Role::Item | Role::Ordered), Role::Item | Role::Ordered) => out.push('\n'),
            (Some(Role::Pre), Role::Pre) => {
                // One fence for consecutive preformatted paragraphs.
                out.truncate(out.len() - "\n```".len());
                out.push('\n');
                out.push_str(analysis.slice(s, e));
                out.push_str("\n```");
                continue;
            }
            _ => out.push_str("\n\n"),
        }
        match role {
            Role::Heading(level) => {
                out.push_str(&"#".repeat(level.clamp(1, 6) as usize));
                out.push(' ');
                out.push_str(&text);
            }
            Role::Item => write!(out, "- {text}").unwrap_or(()),
            Role::Ordered => write!(out, "1. {text}").unwrap_or(()),
            Role::Quote => write!(out, "> {text}").unwrap_or(()),
            // Code keeps its characters: no link or emphasis markup inside.
            Role::Pre => write!(out, "```\n{}\n```", analysis.slice(s, e)).unwrap_or(()),
            _ => out.push_str(&text),
        }
        prev = Some(role);
    }
    if table.flush(&mut out) {
        // The table was last: nothing to separate.
    }
    if let Some(d) = &content.declared {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(d);
    }
    out
}

/// The block a paragraph starting at `start` belongs to.
fn block_of(analysis: &Analysis, start: u32) -> Option<&crate::analyse::Block> {
    let i = analysis.blocks.partition_point(|b| b.end <= start);
    analysis.blocks.get(i).filter(|b| b.start <= start)
}

/// One paragraph's text with links as `[text](href)` and inline code in
/// backticks.
fn inline(analysis: &Analysis, s: u32, e: u32, base: Option<&url::Url>) -> String {
    let mut marks: Vec<(u32, u32, Mark)> = Vec::new();
    if let Some(o) = analysis.outline.as_deref() {
        let first = o.captures.partition_point(|c| c.start < s);
        for c in o.captures[first..].iter().take_while(|c| c.start < e) {
            if let Captured::Link(href) = &c.what {
                if c.end <= e && is_followable(href) {
                    marks.push((c.start, c.end, Mark::Link(href)));
                }
            }
        }
    }
    let segs = &analysis.segments;
    let first = segs.partition_point(|g| g.end <= s);
    for g in segs[first..].iter().take_while(|g| g.start < e) {
        if g.flags & IN_CODE != 0 {
            marks.push((g.start.max(s), g.end.min(e), Mark::Code));
        }
    }
    marks.sort_by_key(|m| m.0);
    let mut out = String::new();
    let mut at = s;
    for (ms, me, mark) in marks {
        // Skip whitespace the range starts with; skip overlaps (a link inside code).
        let ms = ms.max(s);
        let inner = analysis.slice(ms, me);
        let lead = (inner.len() - inner.trim_start().len()) as u32;
        let ms = ms + lead;
        if ms < at || me <= ms {
            continue;
        }
        out.push_str(analysis.slice(at, ms));
        let inner = analysis.slice(ms, me);
        match mark {
            Mark::Link(href) => {
                let href = href.trim();
                let resolved = base.and_then(|b| b.join(href).ok());
                let target = resolved.as_ref().map_or(href, url::Url::as_str);
                write!(out, "[{inner}]({target})").unwrap_or(())
            }
            Mark::Code => write!(out, "`{inner}`").unwrap_or(()),
        }
        at = me;
    }
    out.push_str(analysis.slice(at, e));
    out
}

enum Mark<'a> {
    Link(&'a str),
    Code,
}

/// Links a reader could follow (not script or in-page anchors).
fn is_followable(href: &str) -> bool {
    let h = href.trim();
    !h.is_empty() && !h.starts_with('#') && !h.to_ascii_lowercase().starts_with("javascript:")
}

/// Table rows being collected, written as a pipe table.
#[derive(Default)]
struct Table {
    rows: Vec<Vec<String>>,
}

impl Table {
    fn cell(&mut self, text: String, row_start: bool) {
        if row_start || self.rows.is_empty() {
            self.rows.push(Vec::new());
        }
        if let Some(row) = self.rows.last_mut() {
            row.push(text.replace('|', "\\|"));
        }
    }

    /// Writes the table, if any; true when it wrote one.
    fn flush(&mut self, out: &mut String) -> bool {
        if self.rows.is_empty() {
            return false;
        }
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        let columns = self.rows.iter().map(Vec::len).max().unwrap_or(1);
        for (i, row) in self.rows.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push('|');
            for c in 0..columns {
                write!(out, " {} |", row.get(c).map_or("", String::as_str)).unwrap_or(());
            }
            if i == 0 {
                out.push('\n');
                out.push('|');
                out.push_str(&" --- |".repeat(columns));
            }
        }
        self.rows.clear();
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::analyse_outlined;

    fn md(html: &str) -> String {
        let a = analyse_outlined(html, None).unwrap();
        // Every paragraph is content here: the test is about the rendering.
        let content = Content {
            paragraphs: a.blocks.iter().map(|b| (b.start, b.end)).collect(),
            ..Default::default()
        };
        markdown(&a, &content, "https://e.com/a/")
    }

    #[test]
    fn structure_is_kept() {
        let got = md(
            r#"<h2>Setup</h2><p>Run <code>make</code> then read <a href="https://e.com/doc">the doc</a>.</p>
            <ul><li>one</li><li>two</li></ul><ol><li>first<li>second</ol>
            <blockquote>wise words</blockquote><pre>let x = 1;</pre><pre>let y = 2;</pre>
            <table><tr><th>k</th><th>v</th></tr><tr><td>a|b</td><td>1</td></tr></table><p>end</p>"#,
        );
        let want = "## Setup\n\nRun `make` then read [the doc](https://e.com/doc).\n\n- one\n- two\n1. first\n1. second\n\n> wise words\n\n```\nlet x = 1;\nlet y = 2;\n```\n\n| k | v |\n| --- | --- |\n| a\\|b | 1 |\n\nend";
        assert_eq!(got, want);
    }

    #[test]
    fn same_words_as_the_text() {
        let html = r#"<p>A <a href="/x">link</a> and <a href="javascript:void(0)">none</a></p><table><tr><td>x</td></tr></table>"#;
        let got = md(html);
        assert_eq!(got, "A [link](https://e.com/x) and none\n\n| x |\n| --- |");
    }
}
