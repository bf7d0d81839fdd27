// Test entry point: libsystemc provides main() and calls sc_main(), so GoogleTest starts here.
#include <gtest/gtest.h>
#include <systemc>  // declares sc_main extern "C"

int sc_main(int argc, char* argv[]) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
