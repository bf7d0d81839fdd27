// libsystemc.so references sc_main; these GoogleTest binaries start from gtest_main and call
// sc_start themselves, so sc_main only has to exist.
int sc_main(int, char**) { return 0; }
