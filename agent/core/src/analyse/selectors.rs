//! The HTML pass through lol_html, for pages whose site has a content-tag
//! rule: the rule is a CSS selector, and lol_html matches selectors as it
//! streams. Every other page goes through the tokenizer (`tokenizer.rs`),
//! which is several times faster; both feed the same `State`.
//!
//! Two properties of lol_html shape this: end-tag handlers run only for
//! explicitly closed elements (the state truncates its own stack when one
//! closes), and text chunks carry raw character references, so a text node
//! is buffered until it is complete and then decoded (`State::on_text`).

use super::state::{Attrs, State};
use super::tokenizer::TextKind;
use super::AnalyseError;
use lol_html::html_content::{Element, TextChunk, TextType};
use lol_html::{DocumentContentHandlers, ElementContentHandlers, HtmlRewriter, Selector, Settings};
use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

/// The parser is fed this much at a time, and the page's budget checked in
/// between.
const FEED_BYTES: usize = super::tokenizer::PROGRESS_BYTES;

fn read_attrs(el: &Element, outline: bool) -> Attrs<'static> {
    let mut a = Attrs::new(outline);
    for attr in el.attributes() {
        a.take(attr.name().as_bytes(), || Cow::Owned(attr.value()));
    }
    a
}

fn text_kind(t: TextType) -> Option<TextKind> {
    match t {
        TextType::Data => Some(TextKind::Data),
        TextType::RCData => Some(TextKind::RcData),
        TextType::RawText => Some(TextKind::RawText),
        TextType::ScriptData => Some(TextKind::Script),
        TextType::PlainText => Some(TextKind::PlainText),
        TextType::CDataSection => None,
    }
}

/// Runs `html` through lol_html into `state`; `rule` marks the content.
pub(super) fn pass(
    html: &str,
    rule: Option<&Selector>,
    state: State,
) -> Result<State, AnalyseError> {
    let budget = state.budget;
    let state = Rc::new(RefCell::new(state));
    {
        let all: Selector = "*".parse().expect("the universal selector parses");
        let on_element = {
            let state = state.clone();
            move |el: &mut Element| {
                let name = el.tag_name();
                let mut st = state.borrow_mut();
                let known = super::elements::of(&name);
                if !st.start(&name, known, el.can_have_content(), false, |outline| {
                    read_attrs(el, outline)
                }) {
                    return Ok(());
                }
                let serial = st.serial;
                drop(st);
                let state = state.clone();
                el.on_end_tag(Box::new(move |_end| {
                    state.borrow_mut().close(serial);
                    Ok(())
                }))
            }
        };
        let on_text = {
            let state = state.clone();
            move |t: &mut TextChunk| {
                if let Some(kind) = text_kind(t.text_type()) {
                    state
                        .borrow_mut()
                        .on_text(kind, t.as_str(), t.last_in_text_node());
                }
                Ok(())
            }
        };
        let mut settings = Settings::new()
            .with_strict(false)
            .append_element_content_handler((
                Cow::Owned(all),
                ElementContentHandlers::default().element(on_element),
            ))
            .append_document_content_handler(DocumentContentHandlers::default().text(on_text));
        if let Some(selector) = rule {
            let state = state.clone();
            settings = settings.append_element_content_handler((
                Cow::Borrowed(selector),
                ElementContentHandlers::default().element(move |el: &mut Element| {
                    let mut st = state.borrow_mut();
                    if el.can_have_content() {
                        st.mark_content();
                    } else {
                        st.content_matched = true;
                    }
                    Ok(())
                }),
            ));
        }
        let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
        for piece in html.as_bytes().chunks(FEED_BYTES) {
            rewriter
                .write(piece)
                .map_err(|e| AnalyseError::Parse(e.to_string()))?;
            if let Some(b) = budget {
                if std::time::Instant::now() > b.deadline {
                    return Err(AnalyseError::TooSlow(b.ms));
                }
            }
        }
        rewriter
            .end()
            .map_err(|e| AnalyseError::Parse(e.to_string()))?;
    }
    let state = std::mem::take(&mut *state.borrow_mut());
    Ok(state)
}
