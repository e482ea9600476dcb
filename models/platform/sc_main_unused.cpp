// libsystemc's own main() refers to sc_main. Programs here have their own main() and start SystemC
// themselves, so this definition only satisfies the linker and is never called.
extern "C" int sc_main(int, char**) { return 1; }
