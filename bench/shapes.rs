//! Adversarial input shapes at a given size: what the web can send to make
//! a parser or an extractor slow (issue "Three times the fastest peer,
//! linear on every input"). Used by `bench/adversarial.rs` (the table) and
//! `tests/adversarial.rs` (the bound, in CI).
#![allow(dead_code)]

/// `(name, content type, body)` of every shape, each about `bytes` long.
pub fn shapes(bytes: usize) -> Vec<(&'static str, &'static str, Vec<u8>)> {
    let html = "text/html; charset=utf-8";
    let rep = |unit: &str, head: &str, tail: &str| -> Vec<u8> {
        let n = bytes.saturating_sub(head.len() + tail.len()) / unit.len().max(1);
        let mut s = String::with_capacity(bytes + 64);
        s.push_str(head);
        for _ in 0..n {
            s.push_str(unit);
        }
        s.push_str(tail);
        s.into_bytes()
    };
    let text = "<p>Some ordinary words of a paragraph that a reader would read here.</p>";
    // `unit` repeated in the head, an ordinary paragraph in the body.
    let in_head = |unit: &str| rep(unit, "<html><head>", &format!("</head><body>{text}"));
    let mut attrs = String::from("<html><body><div");
    let mut i = 0;
    while attrs.len() < bytes {
        attrs.push_str(&format!(" a{i}=x"));
        i += 1;
    }
    attrs.push_str(">text</div>");
    let mut classes = String::from("<html><body>");
    while classes.len() < bytes {
        classes.push_str(
            "<div class=\"nav menu sidebar footer comment share related widget ad banner cookie\">x</div>",
        );
    }
    let mut invalid = b"<html><body><p>".to_vec();
    while invalid.len() < bytes {
        invalid.extend_from_slice(b"\xff\xfe\xc3(\xe2\x82 words ");
    }
    vec![
        (
            "deep <div> nesting",
            html,
            rep("<div>", "<html><body>", text),
        ),
        (
            "deep <span> nesting",
            html,
            rep("<span>", "<html><body><p>", "words</p>"),
        ),
        (
            "nested tables",
            html,
            rep("<table><tr><td>", "<html><body>", text),
        ),
        (
            "open <a> formatting elements",
            html,
            rep("<a href=x>w ", "<html><body>", ""),
        ),
        ("one element, many attributes", html, attrs.into_bytes()),
        (
            "boilerplate classes on every div",
            html,
            classes.into_bytes(),
        ),
        (
            "one huge comment",
            html,
            rep("x", "<html><body><!--", &format!("-->{text}")),
        ),
        (
            "one huge <script>",
            html,
            rep(
                "var a=1;",
                "<html><body><script>",
                &format!("</script>{text}"),
            ),
        ),
        (
            "one huge <style>",
            html,
            rep("a{b:c}", "<html><body><style>", &format!("</style>{text}")),
        ),
        (
            "millions of tiny tags",
            html,
            rep("<b>x</b>", "<html><body><p>", "</p>"),
        ),
        (
            "empty tags",
            html,
            rep("<i></i>", "<html><body><p>", "</p>"),
        ),
        (
            "one giant text node",
            html,
            rep("word ", "<html><body><p>", "</p>"),
        ),
        (
            "unclosed <p> run",
            html,
            rep("<p>word ", "<html><body>", ""),
        ),
        (
            "unclosed <li> run",
            html,
            rep("<li>word ", "<html><body><ul>", ""),
        ),
        (
            "unclosed <td> run",
            html,
            rep("<td>word ", "<html><body><table><tr>", ""),
        ),
        (
            "many small JSON-LD scripts",
            html,
            in_head("<script type=\"application/ld+json\">{}</script>"),
        ),
        (
            "many <meta> tags",
            html,
            in_head("<meta name=\"robots\" content=\"noai, noimageai\"><meta property=\"og:type\" content=\"article\">"),
        ),
        (
            "many <title> elements",
            html,
            in_head("<title>A title</title>"),
        ),
        (
            "many <noscript> elements",
            html,
            rep("<noscript><p>x</p></noscript>", "<html><body>", text),
        ),
        (
            "many <time> elements and bylines",
            html,
            rep(
                "<time datetime=\"2024-01-02\">2 Jan</time><span class=\"byline author\">A. Writer</span>",
                "<html><body><article>",
                &format!("{text}</article>"),
            ),
        ),
        (
            "many headings",
            html,
            rep("<h2>A heading</h2>", "<html><body>", text),
        ),
        (
            "one endless word",
            html,
            rep("x", "<html><body><p>", "</p>"),
        ),
        (
            "text without spaces (CJK)",
            html,
            rep("的一是不了人我在有他这为之大来以个中上们", "<html><body><p>", "</p>"),
        ),
        (
            "one line repeated",
            html,
            rep("<p>The same line of a page, again and again.</p>\n", "<html><body>", ""),
        ),
        (
            "named entities",
            html,
            rep("&amp;", "<html><body><p>", "</p>"),
        ),
        (
            "numeric entities",
            html,
            rep("&#128512;", "<html><body><p>", "</p>"),
        ),
        ("invalid UTF-8 declared UTF-8", html, invalid),
        (
            "UTF-16 declared, ASCII sent",
            "text/html; charset=utf-16",
            rep("word ", "<html><body><p>", "</p>"),
        ),
        (
            "unknown charset",
            "text/html; charset=x-no-such-charset",
            rep("word ", "<html><body><p>", "</p>"),
        ),
        (
            "windows-1252 high bytes",
            "text/html; charset=windows-1252",
            {
                let mut b = b"<html><body><p>".to_vec();
                while b.len() < bytes {
                    b.extend_from_slice(b"\x93quoted\x94 \x85 caf\xe9 ");
                }
                b
            },
        ),
    ]
}
