/* Compiled with: clang-14 --target=lanai -O2 -ffreestanding -c prog.c -o prog.o */
extern int helper(int);
const char *names[] = {"zero", "one", "two"};
int counter;
static int scale = 3;
int pick(int x) {
	switch (x) {
	case 0: return helper(1);
	case 1: return 7 * scale;
	case 2: return 9;
	case 3: return counter;
	case 4: return 13;
	case 5: return names[1][0];
	case 6: return 17;
	}
	return x * counter;
}
int main(void) { return pick(counter) + names[2][1]; }
