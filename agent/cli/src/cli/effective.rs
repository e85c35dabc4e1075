//! `crawlsieve config`: the configuration in effect, as a TOML file with the
//! shipped defaults' comments. A binary user has no `rules/defaults.toml` to
//! read; this prints it, with the values that the config file, the
//! environment and `--set` change put in, and checks every key on the way
//! (the `[agent]` section too).

use super::ConfigArgs;
use crawlsieve_core::settings::{Settings, DEFAULTS};
use std::io::Write;
use toml_edit::{DocumentMut, Item, Table, Value};

#[derive(clap::Args)]
pub struct ConfigCmdArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// Only the shipped defaults, without the config file, environment or `--set`.
    #[arg(long)]
    defaults: bool,
}

pub fn run(a: ConfigCmdArgs) -> anyhow::Result<i32> {
    let text = if a.defaults {
        DEFAULTS.to_string()
    } else {
        // Loading checks every key and value, as any command would at start-up.
        a.config.load(&[])?;
        let overrides = a.config.overrides()?;
        let pairs = super::pairs(&overrides);
        let effective = Settings::layers(a.config.config.as_deref(), &pairs)?;
        // The agent's section only when there is one (a scan needs none).
        if effective.get::<::config::Value>("agent").is_ok() {
            crawlsieve_daemon::agent::config::AgentSettings::load(
                a.config.config.as_deref(),
                &pairs,
            )?;
        }
        effective_toml(&effective)?
    };
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(0)
}

/// The shipped defaults' text with every value replaced by the effective
/// one; keys the defaults do not name (the `[agent]` section, a set's
/// origins, site rules) follow, from the configuration as given.
fn effective_toml(effective: &::config::Config) -> anyhow::Result<String> {
    let mut doc: DocumentMut = DEFAULTS.parse()?;
    let mut given: toml_edit::Table = Table::new();
    let all: ::config::Map<String, ::config::Value> = effective.clone().try_deserialize()?;
    for (key, value) in all {
        put(doc.as_table_mut(), &mut given, &key, value);
    }
    let mut out = doc.to_string();
    if !given.is_empty() {
        out.push_str(
            "\n# Keys the shipped defaults do not set, as your configuration gives them.\n",
        );
        let mut extra = DocumentMut::new();
        *extra.as_table_mut() = given;
        out.push_str(&extra.to_string());
    }
    Ok(out)
}

/// Puts `value` at `key` of `doc` when the defaults have that key (keeping
/// its comments), else into `given`.
fn put(doc: &mut Table, given: &mut Table, key: &str, value: ::config::Value) {
    match (doc.get_mut(key), value.kind.clone()) {
        (Some(Item::Table(t)), ::config::ValueKind::Table(children)) => {
            let mut rest = Table::new();
            for (k, v) in children {
                put(t, &mut rest, &k, v);
            }
            if !rest.is_empty() {
                given.insert(key, Item::Table(rest));
            }
        }
        (Some(Item::Value(old)), _) => {
            let decor = old.decor().clone();
            let mut new = to_toml(&value);
            *new.decor_mut() = decor;
            *old = new;
        }
        (_, ::config::ValueKind::Table(children)) => {
            let mut t = Table::new();
            for (k, v) in children {
                t.insert(&k, to_item(&v));
            }
            given.insert(key, Item::Table(t));
        }
        _ => {
            given.insert(key, Item::Value(to_toml(&value)));
        }
    }
}

fn to_item(v: &::config::Value) -> Item {
    match &v.kind {
        ::config::ValueKind::Table(children) => {
            let mut t = Table::new();
            for (k, v) in children {
                t.insert(k, to_item(v));
            }
            Item::Table(t)
        }
        _ => Item::Value(to_toml(v)),
    }
}

fn to_toml(v: &::config::Value) -> Value {
    use ::config::ValueKind as K;
    match &v.kind {
        K::Nil => Value::from(""),
        K::Boolean(b) => Value::from(*b),
        K::I64(i) => Value::from(*i),
        K::I128(i) => Value::from(*i as i64),
        K::U64(i) => Value::from(*i as i64),
        K::U128(i) => Value::from(*i as i64),
        K::Float(f) => Value::from(*f),
        K::String(s) => Value::from(s.as_str()),
        K::Array(items) => Value::Array(items.iter().map(to_toml).collect()),
        K::Table(children) => {
            let mut t = toml_edit::InlineTable::new();
            for (k, v) in children {
                t.insert(k, to_toml(v));
            }
            Value::InlineTable(t)
        }
    }
}
