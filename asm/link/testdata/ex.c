/* The worked example of isa.md §6.4:
   clang-14 --target=lanai -O2 -ffreestanding -c ex.c -o ex.o */
__attribute__((noinline)) int add(int a, int b) { return a + b; }
int main(void) { return add(40, 2); }
