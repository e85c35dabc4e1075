//! `crawlsieve languages`: the codes a page may get (what `language.allow` takes).

use std::io::Write;

#[derive(clap::Args)]
pub struct LanguagesArgs {}

pub fn run(_args: LanguagesArgs) -> anyhow::Result<i32> {
    // Written, not printed: `crawlsieve languages | head` closes the pipe early,
    // and that is an error to return (main ends quietly on it), not a panic.
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "code\tscript\tdetected by\tname\tright on held-apart declaration pages"
    )?;
    for k in crawlsieve_core::language::known() {
        let right = match k.right {
            Some((share, pages)) => format!("{share} of {pages}"),
            None => "-".to_string(),
        };
        writeln!(
            out,
            "{}\t{}\t{}\t{}\t{right}",
            k.code, k.script, k.by, k.name
        )?;
    }
    out.flush()?;
    Ok(0)
}
