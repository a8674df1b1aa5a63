// Duff's device: a `case` label inside a loop of its own `switch` jumps
// into the middle of the loop, which makes the control flow irreducible.
// Valid C, but lanes cannot vectorize it (L0920, "later" in DESIGN §1).
__kernel void copy8(__global int *to, __global const int *from, int count)
{
    int i = 0;
    int n = (count + 7) / 8;
    switch (count % 8) {
    case 0: do { to[i] = from[i]; i++;
    case 7:      to[i] = from[i]; i++;  //~ error[L0920]
    case 6:      to[i] = from[i]; i++;  //~ error[L0920]
    case 5:      to[i] = from[i]; i++;  //~ error[L0920]
    case 4:      to[i] = from[i]; i++;  //~ error[L0920]
    case 3:      to[i] = from[i]; i++;  //~ error[L0920]
    case 2:      to[i] = from[i]; i++;  //~ error[L0920]
    case 1:      to[i] = from[i]; i++;  //~ error[L0920]
            } while (--n > 0);
    }
}
