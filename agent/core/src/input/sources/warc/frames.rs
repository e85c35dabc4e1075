//! Compressed archives other than gzip: LZ4 frames (what FastWARC writes, a
//! frame per record, as gzip's members), and the compressions that are
//! recognised but not read (named, so that such a file is an input problem
//! that says what it is, never a page).
//!
//! lz4_flex decodes the frames; it reads concatenated frames as one stream,
//! so each frame is delimited here (its header and block sizes say where it
//! ends, without decoding it) to give every record the offset of its own.

use std::io::{self, Read};

/// The four bytes every LZ4 frame starts with (0x184D2204, little-endian).
pub const LZ4_MAGIC: [u8; 4] = [0x04, 0x22, 0x4d, 0x18];

/// Largest LZ4 frame taken whole: a frame per record is far smaller; a file
/// that is one frame for all its records, past this, is an input problem.
const MAX_FRAME: usize = 256 << 20;

/// The next LZ4 frame of `r`, compressed, as it stands (skippable frames
/// before it are passed over).
pub fn lz4_frame(r: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut frame = Vec::new();
    loop {
        let mut magic = [0u8; 4];
        r.read_exact(&mut magic)?;
        let value = u32::from_le_bytes(magic);
        if (0x184D2A50..=0x184D2A5F).contains(&value) {
            let size = read_u32(r)?;
            io::copy(&mut r.take(size as u64), &mut io::sink())?;
            continue;
        }
        if magic != LZ4_MAGIC {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "not an LZ4 frame (bad magic number)",
            ));
        }
        frame.extend_from_slice(&magic);
        break;
    }
    let mut descriptor = [0u8; 2];
    r.read_exact(&mut descriptor)?;
    frame.extend_from_slice(&descriptor);
    let flags = descriptor[0];
    let block_checksum = flags & 0x10 != 0;
    let content_checksum = flags & 0x04 != 0;
    // Content size (8 bytes), dictionary id (4), then the header checksum (1).
    let rest = 1 + if flags & 0x08 != 0 { 8 } else { 0 } + if flags & 0x01 != 0 { 4 } else { 0 };
    copy_exact(r, rest, &mut frame)?;
    loop {
        let size = read_u32(r)?;
        frame.extend_from_slice(&size.to_le_bytes());
        if size == 0 {
            break;
        }
        let len = (size & 0x7fff_ffff) as usize + if block_checksum { 4 } else { 0 };
        if frame.len() + len > MAX_FRAME {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("LZ4 frame larger than {} MiB", MAX_FRAME >> 20),
            ));
        }
        copy_exact(r, len, &mut frame)?;
    }
    if content_checksum {
        copy_exact(r, 4, &mut frame)?;
    }
    Ok(frame)
}

fn read_u32(r: &mut impl Read) -> io::Result<u32> {
    let mut b = [0u8; 4];
    r.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

/// Appends exactly `n` bytes of `r` to `out`; memory grows with the bytes
/// that come, not with what a (hostile) size field claims.
fn copy_exact(r: &mut impl Read, n: usize, out: &mut Vec<u8>) -> io::Result<()> {
    let start = out.len();
    r.take(n as u64).read_to_end(out)?;
    if out.len() - start < n {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(())
}

/// What an archive compressed in a way not read is, from its first bytes.
pub fn unread_compression(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) || head.starts_with(&[0x5d, 0x2a, 0x4d, 0x18]) {
        Some("zstd-compressed (WARC-zstd): not read; decompress it first (`zstd -d`, with the dictionary its first frame holds)")
    } else if head.starts_with(b"BZh") {
        Some("bzip2-compressed: not read; decompress it first")
    } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
        Some("xz-compressed: not read; decompress it first")
    } else {
        None
    }
}
