// libsystemc.so defines main() and needs an sc_main (TOOLCHAIN.md, pitfall 8). Programs that
// use weft have their own main() and the rtl backend calls sc_start itself, so this sc_main
// only exists to link; it runs only in a program that has no main() of its own.
#include <cstdio>

extern "C" int sc_main(int, char*[]) {  // as SystemC declares it (sc_externs.h)
  std::fputs("weft: sc_main is not an entry point; the rtl backend runs SystemC itself\n", stderr);
  return 1;
}
