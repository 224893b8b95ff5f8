/* A small C program for the golden tests (clang-14 --target=lanai -O1). */
static const char msg[] = "lanai";
int counter;
int table[8] = {1, 2, 3, 5, 8, 13, 21, 34};
static int scratch[16];

static int sum(const int *p, int n) {
	int s = 0;
	for (int i = 0; i < n; i++)
		s += p[i];
	return s;
}

int classify(int x) {
	switch (x) {
	case 0: return 10;
	case 1: return 20;
	case 2: return 35;
	case 3: return 47;
	case 4: return 51;
	case 5: return 66;
	default: return -1;
	}
}

int main(void) {
	int n = 0;
	for (const char *s = msg; *s; s++)
		n += *s;
	for (int i = 0; i < 16; i++)
		scratch[i] = n + i;
	counter = sum(table, 8) + sum(scratch, 16) + classify(n & 7);
	return counter;
}
