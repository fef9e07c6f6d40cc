// bcryptprimitives.dll for Wine 8 (Debian 12), which lacks ProcessPrng: Node 22 for Windows and Rust's
// standard library call it for random bytes. It forwards to RtlGenRandom (advapi32's
// SystemFunction036), which Wine has. Built by scripts/toolchain.sh with zig into the Wine prefix the
// platforms suite runs node.exe in; test-only, it never ships.
#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
  while (length > 0) {
    ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
    if (!SystemFunction036(data, chunk)) return FALSE;
    data += chunk;
    length -= chunk;
  }
  return TRUE;
}
