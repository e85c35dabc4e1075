//! `crawlsieve languages`: the codes a page may get (what `language.allow` takes).

#[derive(clap::Args)]
pub struct LanguagesArgs {}

pub fn run(_args: LanguagesArgs) -> anyhow::Result<i32> {
    println!("code\tscript\tdetected by");
    for k in crawlsieve::language::known() {
        println!("{}\t{}\t{}", k.code, k.script, k.by);
    }
    Ok(0)
}
