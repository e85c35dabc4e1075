//! Files that must survive a machine crash, not only a process crash.
//!
//! `write` returns once the bytes are in the page cache: a process crash keeps
//! them, a power loss or kernel panic may not. Worse, renaming a file whose
//! data never reached the disk can leave an empty file under the new name. So
//! a file that is replaced (an offset, a checkpoint, a cached set) is written
//! beside its target, `sync_data`'d, renamed over the target, and the directory
//! is fsync'd so that the rename itself is on the disk: after a crash the old
//! content or the new one is there, whole.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Replaces `path` with `bytes`, atomically; durably when `sync` (otherwise
/// atomically only: a crash of the process leaves old or new, a crash of the
/// machine may leave the old).
pub fn replace(path: &Path, bytes: &[u8], sync: bool) -> std::io::Result<()> {
    let tmp = temporary(path);
    let mut f = File::create(&tmp)?;
    f.write_all(bytes)?;
    if sync {
        f.sync_data()?;
    }
    drop(f);
    std::fs::rename(&tmp, path)?;
    if sync {
        sync_dir(path)?;
    }
    Ok(())
}

/// Makes the directory entry of `path` (a create or a rename) durable.
pub fn sync_dir(path: &Path) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    File::open(dir)?.sync_all()
}

/// `name.tmp` beside `path`: the same file system, so the rename is atomic.
fn temporary(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

/// A file's text, or None when there is none (a rules file a `rules_dir`
/// may hold or leave to the shipped one); any other failure names the file.
pub fn read_optional(path: &Path) -> anyhow::Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(anyhow::anyhow!("{}: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn replaces_whole_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("offset");
        for (i, sync) in [(1, true), (22, false), (333, true)] {
            super::replace(&path, i.to_string().as_bytes(), sync).unwrap();
            assert_eq!(std::fs::read_to_string(&path).unwrap(), i.to_string());
        }
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "only the file itself");
    }
}
