// Enum and union mistakes: an enum defined twice, a union tag used as a
// struct, a union initialized with two values (clang: a warning, "excess
// elements in union initializer"), and an enumerator that is not an
// integer constant.
//
// Launch: 1-D.

enum Mode { MODE_A, MODE_B };
enum Mode { MODE_C };                               //~ error[L0005]

union Bits { float f; uint u; };

__kernel void k(__global uint *out, int n)
{
    struct Bits s;                                  //~ error[L0004]
    union Bits b = { 1.0f, 2u };                    //~ warning[L0024]
    enum { LATE = n };                              //~ error[L0023]
    out[get_global_id(0)] = b.u + MODE_B + LATE;
}
