// Test entry point. libsystemc's own main() prints a banner before anything can silence it, so this
// main() silences it and enters SystemC, which calls sc_main(), which runs GoogleTest.
#include <gtest/gtest.h>

#include <cstdlib>
#include <systemc>  // declares sc_main extern "C"

int sc_main(int argc, char* argv[]) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
