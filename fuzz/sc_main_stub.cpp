// libsystemc references sc_main (its own main() calls it). The fuzz binaries have their own main
// (libFuzzer's, or replay_main.cpp) and never enter it, but a binary linking SystemC needs the symbol.
#include <systemc>

int sc_main(int, char*[]) { return 0; }
