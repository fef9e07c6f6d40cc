//! Which tmux binary may answer the query: the server's own, when `$TMUX` names a live server that
//! this check proves is the tmux server of that socket, so that a tmux upgraded (or removed) under a
//! running server still answers. Nothing here runs a program: it reads `/proc` (Linux) and gives
//! the command numbers only (the server's pid and start time, which the command checks again before
//! it runs `/proc/<pid>/exe`, so a pid reused since cannot run anything).

use std::fs;
use std::path::Path;

use crate::command::ServerBinary;

/// The server of `tmux_env` (the value of `$TMUX`: `<socket path>,<server pid>,<session>`), checked
/// under `proc` (normally `/proc`): the process belongs to `uid`, runs a binary named `tmux…`
/// (deleted or not), and holds the listening socket bound to that path. `None` when any check fails
/// or `/proc` cannot tell.
pub fn checked_server(tmux_env: &str, proc: &Path, uid: u32) -> Option<ServerBinary> {
  let mut parts = tmux_env.rsplitn(3, ',');
  let (_session, pid, socket) = (parts.next()?, parts.next()?, parts.next()?);
  let pid: u32 = pid.parse().ok().filter(|&p| p > 1)?;
  let dir = proc.join(pid.to_string());
  if owner_uid(&dir)? != uid {
    return None;
  }
  let exe = fs::read_link(dir.join("exe")).ok()?;
  let exe = exe.to_string_lossy();
  let name = exe.strip_suffix(" (deleted)").unwrap_or(&exe).rsplit('/').next()?.to_string();
  if !name.starts_with("tmux") {
    return None;
  }
  let listening = listening_inodes(&fs::read_to_string(proc.join("net/unix")).ok()?, socket);
  let serves = fs::read_dir(dir.join("fd")).ok()?.flatten().any(|fd| {
    fs::read_link(fd.path()).is_ok_and(|target| {
      let target = target.to_string_lossy();
      target
        .strip_prefix("socket:[")
        .and_then(|t| t.strip_suffix(']'))
        .is_some_and(|inode| listening.iter().any(|l| l == inode))
    })
  });
  if !serves {
    return None;
  }
  let start_time = start_time(&fs::read_to_string(dir.join("stat")).ok()?)?;
  Some(ServerBinary { pid, start_time })
}

/// The inodes of the listening Unix sockets bound to `path`, from `/proc/net/unix` (columns:
/// `Num RefCount Protocol Flags Type St Inode Path`; a listening socket has flags `00010000` and
/// state `01`).
fn listening_inodes(net_unix: &str, path: &str) -> Vec<String> {
  net_unix
    .lines()
    .skip(1)
    .filter_map(|line| {
      let mut columns = line.split_whitespace();
      let flags = columns.nth(3)?;
      let state = columns.nth(1)?;
      let inode = columns.next()?;
      let bound = columns.collect::<Vec<_>>().join(" ");
      (flags == "00010000" && state == "01" && bound == path).then(|| inode.to_string())
    })
    .collect()
}

/// Field 22 of `/proc/<pid>/stat` (the start time, in clock ticks after boot), counted after the
/// command name's closing parenthesis, which may itself hold spaces and parentheses.
fn start_time(stat: &str) -> Option<u64> {
  stat.rsplit_once(") ")?.1.split_whitespace().nth(19)?.parse().ok()
}

/// The uid of this process.
pub fn own_uid() -> Option<u32> {
  owner_uid(Path::new("/proc/self"))
}

/// The uid that owns `path`; `None` where it cannot be read, and on systems without uids (Windows,
/// WASI), where no server binary is pinned.
#[cfg(unix)]
fn owner_uid(path: &Path) -> Option<u32> {
  use std::os::unix::fs::MetadataExt;
  fs::metadata(path).ok().map(|m| m.uid())
}

#[cfg(not(unix))]
fn owner_uid(_path: &Path) -> Option<u32> {
  None
}

// The checks read a fake `/proc` and its owner uid: Unix only (elsewhere no server is pinned).
#[cfg(all(test, unix))]
mod tests {
  use super::*;

  /// A fake `/proc` with one process: its `stat`, `exe` link, one fd, and `net/unix`.
  fn fake_proc(exe: &str, fd_inode: &str, net_unix: &str) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("4242");
    fs::create_dir_all(dir.join("fd")).unwrap();
    fs::create_dir_all(root.path().join("net")).unwrap();
    fs::write(
      dir.join("stat"),
      "4242 (tmux: server (x)) S 1 4242 4242 0 -1 4194624 1 0 0 0 0 0 0 0 20 0 1 0 987654 0 0",
    )
    .unwrap();
    std::os::unix::fs::symlink(exe, dir.join("exe")).unwrap();
    std::os::unix::fs::symlink(format!("socket:[{fd_inode}]"), dir.join("fd/3")).unwrap();
    fs::write(root.path().join("net/unix"), net_unix).unwrap();
    root
  }

  const NET_UNIX: &str = "Num       RefCount Protocol Flags    Type St Inode Path\n\
    0000000000000000: 00000002 00000000 00010000 0001 01 209608 /tmp/tmux-1000/default\n\
    0000000000000000: 00000003 00000000 00000000 0001 03 209700 /tmp/tmux-1000/default\n";

  fn uid() -> u32 {
    own_uid().unwrap()
  }

  #[test]
  fn the_server_of_the_socket_is_checked_before_its_binary_is_used() {
    let proc = fake_proc("/usr/bin/tmux (deleted)", "209608", NET_UNIX);
    assert_eq!(
      checked_server("/tmp/tmux-1000/default,4242,0", proc.path(), uid()),
      Some(ServerBinary { pid: 4242, start_time: 987654 })
    );
  }

  #[test]
  fn another_program_another_socket_or_another_user_is_refused() {
    let not_tmux = fake_proc("/usr/bin/python3", "209608", NET_UNIX);
    assert_eq!(checked_server("/tmp/tmux-1000/default,4242,0", not_tmux.path(), uid()), None);
    let other_socket = fake_proc("/usr/bin/tmux", "209700", NET_UNIX);
    assert_eq!(
      checked_server("/tmp/tmux-1000/default,4242,0", other_socket.path(), uid()),
      None,
      "a connected socket, not the listening one"
    );
    let proc = fake_proc("/usr/bin/tmux", "209608", NET_UNIX);
    assert_eq!(checked_server("/tmp/tmux-1000/other,4242,0", proc.path(), uid()), None);
    assert_eq!(checked_server("/tmp/tmux-1000/default,4242,0", proc.path(), uid() + 1), None);
    assert_eq!(checked_server("/tmp/tmux-1000/default,4243,0", proc.path(), uid()), None, "no such pid");
    for bad in ["", "x", "/tmp/s,abc,0", "/tmp/s,1,0"] {
      assert_eq!(checked_server(bad, proc.path(), uid()), None, "{bad}");
    }
  }

  #[test]
  fn start_time_after_a_name_with_parentheses() {
    assert_eq!(start_time("1 (a) b) c) S 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 55 1"), Some(55));
    assert_eq!(start_time("1 (a) S 0"), None);
  }
}
