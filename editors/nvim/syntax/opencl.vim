" OpenCL C syntax on top of C's, for Neovim/Vim without an opencl syntax file.
if exists('b:current_syntax')
  finish
endif
runtime! syntax/c.vim
unlet! b:current_syntax

syn keyword openclAddressSpace __global global __constant constant __local local __private private __generic generic
syn keyword openclQualifier __kernel kernel __read_only read_only __write_only write_only __read_write read_write
syn keyword openclType bool uchar ushort uint ulong half size_t ptrdiff_t intptr_t uintptr_t
syn keyword openclType image1d_t image1d_array_t image1d_buffer_t image2d_t image2d_array_t image3d_t sampler_t event_t
syn match openclVectorType "\<\(bool\|char\|uchar\|short\|ushort\|int\|uint\|long\|ulong\|float\|double\|half\)\(2\|3\|4\|8\|16\)\>"
syn keyword openclBuiltin get_work_dim get_global_size get_global_id get_local_size get_local_id get_num_groups get_group_id get_global_offset
syn keyword openclBuiltin get_sub_group_size get_sub_group_local_id sub_group_any sub_group_all sub_group_broadcast barrier work_group_barrier mem_fence
syn match openclBuiltin "\<sub_group_\(reduce_\(add\|min\|max\)\|scan_\(inclusive\|exclusive\)_\(add\|min\|max\)\)\>"
syn match openclBuiltin "\<\(vload\|vstore\)\(2\|3\|4\|8\|16\)\>"
syn match openclBuiltin "\<\(convert\|as\)_\(char\|uchar\|short\|ushort\|int\|uint\|long\|ulong\|float\|double\|half\)\(2\|3\|4\|8\|16\)\=\(_sat\)\=\(_rte\|_rtz\|_rtp\|_rtn\)\=\>"
syn keyword openclConstant CLK_LOCAL_MEM_FENCE CLK_GLOBAL_MEM_FENCE MAXFLOAT HUGE_VALF INFINITY NAN __OPENCL_VERSION__ __OPENCL_C_VERSION__ __LANES__ __LANES_WIDTH__

hi def link openclAddressSpace StorageClass
hi def link openclQualifier StorageClass
hi def link openclType Type
hi def link openclVectorType Type
hi def link openclBuiltin Function
hi def link openclConstant Constant

let b:current_syntax = 'opencl'
