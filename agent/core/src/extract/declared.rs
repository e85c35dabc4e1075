//! A product's description as the page declares it, where the visible text
//! does not carry it.
//!
//! Shops put a product's description in tabs and accordions that a script
//! opens (`display: none` until clicked, "deferred" blocks), or render it in
//! the browser only; the visible text of the HTML then holds the price, the
//! buttons and the menus. The schema.org `Product` the shop declares in
//! JSON-LD for search engines carries the description as text. When it is
//! long enough to be one and the content chosen from the visible text holds
//! less than half of its words, it becomes the content's last paragraph
//! (rs-trafilatura's "JSON-LD product fallback" is the same idea). On WCXB
//! dev this adds it on 5 of the 119 product pages (bench/HISTORY.md).

use super::metadata::{documents, flatten, types_of};
use crate::analyse::text::{clean, decode_entities};
use serde_json::Value;
use std::collections::HashSet;

/// Words a declared description needs to be added: shorter ones are
/// taglines ("Organic cotton tee"), not descriptions.
const MIN_WORDS: usize = 15;

/// The longest description of a `Product` in `json_ld` (the scripts' text),
/// as plain text: descriptions often carry HTML markup and entities.
pub fn product_description(json_ld: &[String]) -> Option<String> {
    // Most pages declare no product: their JSON-LD is not parsed here.
    let docs = documents(json_ld.iter().filter(|s| s.contains("Product")));
    let mut objects = Vec::new();
    for v in &docs {
        flatten(v, &mut objects, 0);
    }
    objects
        .iter()
        .filter(|o| types_of(o).iter().any(|t| t == "product"))
        .filter_map(|o| match o.get("description") {
            Some(Value::String(s)) => Some(plain(s)),
            _ => None,
        })
        .max_by_key(String::len)
}

/// The description to add to `content_text`, if any: one of at least
/// `MIN_WORDS` words, less than half of which the content has.
pub fn missing_from(description: &str, content_text: &str) -> bool {
    let words: Vec<String> = lower_words(description).collect();
    if words.len() < MIN_WORDS {
        return false;
    }
    let have: HashSet<String> = lower_words(content_text).collect();
    let found = words.iter().filter(|w| have.contains(*w)).count();
    2 * found < words.len()
}

fn lower_words(s: &str) -> impl Iterator<Item = String> + '_ {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// Markup out (a tag is a space), entities decoded, whitespace collapsed.
/// One pass: a `<` without its `>` drops the rest, as a browser would not
/// show it either.
fn plain(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    clean(&decode_entities(&out))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DESCRIPTION: &str = "Our family created these crunchy almond crisps for special occasions and get-togethers, a lighter version of a secret family recipe.";

    fn ld(json: &str) -> Vec<String> {
        vec![json.to_string()]
    }

    #[test]
    fn the_longest_product_description_as_plain_text() {
        let json = format!(
            r#"{{"@context":"https://schema.org","@graph":[{{"@type":"WebSite","name":"Shop","description":"A shop that sells many things to many people in many places, every day of the year."}},
               {{"@type":["Product"],"name":"Crisps","description":"<p>{DESCRIPTION}</p><p>Fat&nbsp;free.</p>"}}]}}"#
        );
        let d = product_description(&ld(&json)).unwrap();
        assert_eq!(d, format!("{DESCRIPTION} Fat free."));
    }

    #[test]
    fn pages_without_a_product_have_none() {
        let json = format!(r#"{{"@type":"Article","description":"{DESCRIPTION}"}}"#);
        assert_eq!(product_description(&ld(&json)), None);
        assert_eq!(
            product_description(&ld(r#"{"@type":"Product", broken"#)),
            None
        );
        assert_eq!(product_description(&[]), None);
    }

    #[test]
    fn only_a_long_description_the_content_lacks_is_missing() {
        assert!(missing_from(
            DESCRIPTION,
            "Add to cart. 4.99 EUR. Free shipping"
        ));
        // The content has it (the visible text was not hidden).
        assert!(!missing_from(
            DESCRIPTION,
            &format!("Crisps\n{DESCRIPTION}")
        ));
        // A tagline is not a description.
        assert!(!missing_from("Crunchy almond crisps", "Add to cart"));
    }

    #[test]
    fn unclosed_markup_is_dropped() {
        assert_eq!(plain("text <b>bold</b> and <i"), "text bold and");
    }
}
