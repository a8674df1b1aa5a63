fn main() {
    lanes_build::Build::new()
        .file("../saxpy.cl")
        .file("kernels/transpose.cl")
        .include("kernels/include")
        .compile("kernels");
}
