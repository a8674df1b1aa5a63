//! Declarations: base types and declarators to [`Type`]s, struct layout,
//! typedefs, enums, functions and program-scope variables.

use smol_str::SmolStr;

use super::{Binding, Checker, FnCtx, FuncSig, QualType, Sym, Tag};
use crate::ast::{self, AddressSpace, BaseType, DeclSpec, Derived, Storage};
use crate::builtins;
use crate::diag::{Code, Diagnostic};
use crate::hir::{self, FuncId, FunctionAttrs, GlobalId, LocalId};
use crate::source::Span;
use crate::types::{ImageAccess, ImageDim, Opaque, Scalar, StructId, Type};

fn static_name(name: &str) -> &'static str {
    // Opaque types keep their spelling for messages; the set is closed.
    const NAMES: &[&str] = &[
        "image1d_t",
        "image1d_array_t",
        "image1d_buffer_t",
        "image2d_t",
        "image2d_array_t",
        "image2d_depth_t",
        "image2d_array_depth_t",
        "image3d_t",
        "sampler_t",
        "event_t",
        "queue_t",
        "clk_event_t",
        "ndrange_t",
        "reserve_id_t",
        "pipe",
    ];
    NAMES
        .iter()
        .copied()
        .find(|n| *n == name)
        .unwrap_or("opaque type")
}

fn align_up(x: u64, a: u64) -> u64 {
    if a <= 1 {
        x
    } else {
        x.div_ceil(a).saturating_mul(a)
    }
}

fn attr_is(a: &ast::Attribute, name: &str) -> bool {
    let n = a.name.name.as_str();
    n == name || n.strip_prefix("__").and_then(|n| n.strip_suffix("__")) == Some(name)
}

impl Checker<'_> {
    // --- types ---------------------------------------------------------------

    /// The type named by declaration specifiers, with their qualifiers.
    pub(crate) fn base_type(&mut self, spec: &DeclSpec) -> QualType {
        self.check_aligned(spec);
        if let Some((space, span)) = spec.address_space {
            self.check_space_keyword(space, span);
        }
        let mut spelled = None;
        let ty = match &spec.base {
            BaseType::Builtin(name) => self.builtin_type(name, spec.base_span, &mut spelled),
            BaseType::Typedef(ident) => match self.lookup(&ident.name).map(|b| b.sym.clone()) {
                Some(Sym::Typedef(q)) => {
                    spelled = q.spelled;
                    let mut q = *q;
                    q.ty = self.with_access(q.ty, spec);
                    // Qualifiers of the use add to those of the typedef.
                    q.is_const |= spec.quals.is_const;
                    if spec.address_space.is_some() {
                        q.space = spec.address_space;
                    }
                    q.spelled = spelled;
                    return q;
                }
                Some(_) => {
                    self.error(
                        Code::Syntax,
                        ident.span,
                        format!("`{}` is not a type name", ident.name),
                    );
                    Type::Error
                }
                None => {
                    if let Some((code, msg)) = builtins::unsupported_type(&ident.name) {
                        self.unsupported(code, ident.span, msg);
                    } else {
                        self.error(
                            Code::Undeclared,
                            ident.span,
                            format!("unknown type name `{}`", ident.name),
                        );
                    }
                    Type::Error
                }
            },
            BaseType::Struct(st) => self.struct_type(st, spec, false),
            BaseType::Union(st) => self.struct_type(st, spec, true),
            BaseType::Enum(en) => self.enum_type(en),
            BaseType::Error => Type::Error,
        };
        let ty = self.with_access(ty, spec);
        let space = spec.address_space;
        let is_const = spec.quals.is_const || matches!(space, Some((AddressSpace::Constant, _)));
        QualType {
            ty,
            is_const,
            space,
            spelled,
        }
    }

    /// `ty` with the image access qualifier of `spec`, which only images
    /// may have.
    fn with_access(&mut self, ty: Type, spec: &DeclSpec) -> Type {
        let Some((access, span)) = spec.quals.access else {
            return ty;
        };
        match ty {
            Type::Opaque(Opaque::Image(dim, _), name) => {
                Type::Opaque(Opaque::Image(dim, access), name)
            }
            // Pipes take them too (and are reported as unsupported).
            Type::Error | Type::Opaque(Opaque::Other, _) => ty,
            _ => {
                self.error(
                    Code::InvalidDeclaration,
                    span,
                    format!(
                        "access qualifier `{}` can only be used for pipe and image types",
                        access.keyword()
                    ),
                );
                ty
            }
        }
    }

    fn check_space_keyword(&mut self, space: AddressSpace, span: Span) {
        if space == AddressSpace::Generic {
            self.unsupported(
                Code::UnsupportedGenericAddressSpace,
                span,
                "the generic address space is not supported yet (`__generic`)",
            )
        }
    }

    fn builtin_type(&mut self, name: &str, span: Span, spelled: &mut Option<&'static str>) -> Type {
        match name {
            "void" => return Type::Void,
            "size_t" | "uintptr_t" => {
                *spelled = Some(if name == "size_t" {
                    "size_t"
                } else {
                    "uintptr_t"
                });
                return Type::ULONG;
            }
            "ptrdiff_t" | "intptr_t" => {
                *spelled = Some(if name == "ptrdiff_t" {
                    "ptrdiff_t"
                } else {
                    "intptr_t"
                });
                return Type::LONG;
            }
            _ => {}
        }
        if let Some(s) = crate::workgroup::atomic_type_alias(name) {
            return Type::Scalar(s);
        }
        if let Some((code, msg)) = builtins::unsupported_type(name) {
            self.unsupported(code, span, msg);
        }
        if let Some(s) = Scalar::from_name(name) {
            return Type::Scalar(s);
        }
        if let Some((s, n)) = crate::types::parse_vector_name(name) {
            return Type::Vector(s, n);
        }
        let kind = if name == "sampler_t" {
            Some(Opaque::Sampler)
        } else if let Some(dim) = ImageDim::from_name(name) {
            Some(Opaque::Image(dim, ImageAccess::ReadOnly))
        } else if name == "event_t" {
            Some(Opaque::Event)
        } else if builtins::unsupported_type(name).is_some() {
            Some(Opaque::Other)
        } else {
            None
        };
        match kind {
            Some(k) => Type::Opaque(k, static_name(name)),
            None => {
                self.error(
                    Code::Undeclared,
                    span,
                    format!("unknown type name `{name}`"),
                );
                Type::Error
            }
        }
    }

    /// `enum E { A, B = 4 }` (its enumerators become `int` constants in the
    /// current scope) or `enum E` (a reference). Values of enum type are
    /// `int`s, as in clang for enums whose values fit.
    fn enum_type(&mut self, en: &ast::EnumType) -> Type {
        let Some(variants) = &en.variants else {
            let Some(tag) = &en.tag else {
                self.error(
                    Code::InvalidDeclaration,
                    en.span,
                    "anonymous enum without enumerators",
                );
                return Type::Error;
            };
            match self.lookup_tag(&tag.name) {
                Some((Tag::Enum { .. }, _)) => {}
                Some((Tag::Struct(id), _)) => {
                    let kw = self.unit.structs[id.0 as usize].keyword();
                    self.error(
                        Code::TypeMismatch,
                        tag.span,
                        format!("`{}` is a {kw} tag, not an enum", tag.name),
                    );
                    return Type::Error;
                }
                None => {
                    // `enum E;` declares it; a use before the definition is
                    // an incomplete type in C, an `int` everywhere in clang
                    // but with a warning: declare it and carry on.
                    let scope = self.scopes.last_mut().expect("file scope");
                    scope
                        .tags
                        .insert(tag.name.clone(), (Tag::Enum { defined: false }, tag.span));
                }
            }
            return Type::INT;
        };
        if let Some(tag) = &en.tag {
            let existing = self
                .scopes
                .last()
                .and_then(|s| s.tags.get(&tag.name))
                .copied();
            match existing {
                Some((Tag::Enum { defined: false }, _)) | None => {}
                Some((_, prev)) => self.tag_redefined("enum", tag, prev),
            }
            let scope = self.scopes.last_mut().expect("file scope");
            scope
                .tags
                .insert(tag.name.clone(), (Tag::Enum { defined: true }, tag.span));
        }
        let mut next: i64 = 0;
        for (ident, value) in variants {
            if let Some(e) = value {
                if let Some(v) = self.integer_constant(e, "enumerator value") {
                    next = v;
                }
            }
            self.declare(&ident.name, ident.span, Sym::EnumConst(next));
            next = next.wrapping_add(1);
        }
        Type::INT
    }

    /// `struct S { ... }` (a definition) or `struct S` (a reference); the
    /// same for `union`.
    fn struct_type(&mut self, st: &ast::StructType, spec: &DeclSpec, is_union: bool) -> Type {
        let keyword = if is_union { "union" } else { "struct" };
        let Some(fields) = &st.fields else {
            let Some(tag) = &st.tag else {
                self.error(
                    Code::InvalidDeclaration,
                    st.span,
                    format!("anonymous {keyword} without fields"),
                );
                return Type::Error;
            };
            return match self.lookup_tag(&tag.name) {
                Some((Tag::Struct(id), _))
                    if self.unit.structs[id.0 as usize].is_union == is_union =>
                {
                    Type::Struct(id)
                }
                Some(_) => {
                    self.error(
                        Code::TypeMismatch,
                        tag.span,
                        format!("`{}` is not a {keyword} tag", tag.name),
                    );
                    Type::Error
                }
                None => {
                    // A forward declaration: an incomplete struct in this scope.
                    let id = self.new_struct(tag.name.clone(), tag.span, is_union);
                    let scope = self.scopes.last_mut().expect("file scope");
                    scope
                        .tags
                        .insert(tag.name.clone(), (Tag::Struct(id), tag.span));
                    Type::Struct(id)
                }
            };
        };
        // A definition: complete a forward declaration of this scope, or a new struct.
        let id = match &st.tag {
            Some(tag) => {
                let existing = self
                    .scopes
                    .last()
                    .and_then(|s| s.tags.get(&tag.name))
                    .copied();
                match existing {
                    Some((Tag::Struct(id), _))
                        if !self.unit.structs[id.0 as usize].complete
                            && self.unit.structs[id.0 as usize].is_union == is_union =>
                    {
                        id
                    }
                    Some((_, prev)) => {
                        self.tag_redefined(keyword, tag, prev);
                        let id = self.new_struct(tag.name.clone(), tag.span, is_union);
                        let scope = self.scopes.last_mut().expect("file scope");
                        scope
                            .tags
                            .insert(tag.name.clone(), (Tag::Struct(id), tag.span));
                        id
                    }
                    None => {
                        let id = self.new_struct(tag.name.clone(), tag.span, is_union);
                        let scope = self.scopes.last_mut().expect("file scope");
                        scope
                            .tags
                            .insert(tag.name.clone(), (Tag::Struct(id), tag.span));
                        id
                    }
                }
            }
            None => self.new_struct(SmolStr::new_static("<anonymous>"), st.span, is_union),
        };
        self.unit.structs[id.0 as usize].span = st.span;
        let packed = spec.attributes.iter().any(|a| attr_is(a, "packed"));
        let mut out: Vec<hir::Field> = Vec::new();
        let (mut offset, mut align) = (0u64, 1u64);
        for f in fields {
            let base = self.base_type(&f.spec);
            if let Some(w) = &f.bit_width {
                self.unsupported(
                    Code::UnsupportedBitField,
                    w.span,
                    "bit-fields are not supported yet (`: width`)",
                );
            }
            let Some(name) = &f.declarator.name else {
                // `struct { int a; };` inside a struct (C11 anonymous member) or
                // a nameless field: nothing to access.
                self.error(
                    Code::InvalidDeclaration,
                    f.span,
                    "field declaration does not declare anything",
                );
                continue;
            };
            let q = self.apply_declarator(base, &f.declarator.derived);
            if let Some((space, span)) = q.space {
                if space != AddressSpace::Private {
                    self.error(
                        Code::AddressSpace,
                        span,
                        format!(
                            "field `{}` may not be qualified with an address space",
                            name.name
                        ),
                    );
                }
            }
            if let Some(prev) = out.iter().find(|p| p.name == name.name) {
                let d = Diagnostic::new(
                    Code::Redefinition,
                    name.span,
                    format!("duplicate member `{}`", name.name),
                )
                .with_related(
                    prev.span,
                    format!("previous declaration of `{}` is here", name.name),
                );
                self.report(d);
                continue;
            }
            let mut ty = q.ty;
            self.check_not_half(&ty, name.span);
            if ty.is_image_or_sampler() {
                let msg =
                    format!("the `{ty}` type cannot be used to declare a structure or union field");
                self.error(Code::InvalidDeclaration, name.span, msg);
                ty = Type::Error;
            }
            let layout = hir::layout_of(&ty, &self.unit.structs);
            let (size, a) = match layout {
                Some(l) => l,
                None => {
                    if !ty.is_error() && !matches!(ty, Type::Opaque(..)) {
                        self.error(
                            Code::InvalidDeclaration,
                            name.span,
                            format!(
                                "field `{}` has incomplete type `{}`",
                                name.name,
                                self.tn(&ty)
                            ),
                        );
                    }
                    (0, 1)
                }
            };
            let a = if packed { 1 } else { a };
            // A union's members all start at 0; `offset` is then its largest size.
            let at = if is_union { 0 } else { align_up(offset, a) };
            out.push(hir::Field {
                name: name.name.clone(),
                ty,
                offset: at,
                span: name.span,
                is_const: q.is_const,
            });
            offset = offset.max(at.saturating_add(size));
            align = align.max(a);
        }
        let def = &mut self.unit.structs[id.0 as usize];
        def.fields = out;
        def.size = align_up(offset, align);
        def.align = align;
        def.complete = true;
        Type::Struct(id)
    }

    /// `struct`, `union` or `enum` `tag` defined again where `prev` was.
    fn tag_redefined(&mut self, keyword: &str, tag: &ast::Ident, prev: Span) {
        let d = Diagnostic::new(
            Code::Redefinition,
            tag.span,
            format!("redefinition of `{keyword} {}`", tag.name),
        )
        .with_related(
            prev,
            format!("previous definition of `{}` is here", tag.name),
        );
        self.report(d);
    }

    fn new_struct(&mut self, name: SmolStr, span: Span, is_union: bool) -> StructId {
        self.unit.structs.push(hir::StructDef {
            name,
            is_typedef_name: false,
            span,
            fields: Vec::new(),
            size: 0,
            align: 1,
            complete: false,
            is_union,
        });
        StructId(self.unit.structs.len() as u32 - 1)
    }

    /// Applies derived types (from the base outwards) to a base type. Array
    /// sizes are evaluated here; `[]` gives length 0 (the caller infers it).
    pub(crate) fn apply_declarator(&mut self, base: QualType, derived: &[Derived]) -> QualType {
        let mut cur = base;
        for d in derived {
            match d {
                Derived::Pointer {
                    quals,
                    address_space,
                    span,
                } => {
                    if let Some(space) = address_space {
                        self.check_space_keyword(*space, *span);
                    }
                    if cur.ty.is_image_or_sampler() {
                        let msg = format!("pointer to type `{}` is invalid in OpenCL", cur.ty);
                        self.error(Code::InvalidDeclaration, *span, msg);
                        cur.ty = Type::Error;
                    }
                    let pointee_space = cur.space.map_or(AddressSpace::Private, |s| s.0);
                    let pointee_const = cur.is_const || pointee_space == AddressSpace::Constant;
                    let ty = if cur.ty.is_error() {
                        Type::Error
                    } else {
                        Type::pointer(cur.ty, pointee_space, pointee_const)
                    };
                    cur = QualType {
                        ty,
                        is_const: quals.is_const,
                        space: address_space.map(|s| (s, *span)),
                        spelled: None,
                    };
                }
                Derived::Array { size, span } => {
                    let n = match size {
                        Some(e) => self.array_size(e),
                        None => Some(0),
                    };
                    if cur.ty.is_void() {
                        self.error(
                            Code::InvalidDeclaration,
                            *span,
                            "array has incomplete element type `void`",
                        );
                        cur.ty = Type::Error;
                    } else if cur.ty.is_image_or_sampler() {
                        let msg = format!("array of `{}` type is invalid in OpenCL", cur.ty);
                        self.error(Code::InvalidDeclaration, *span, msg);
                        cur.ty = Type::Error;
                    } else if let Type::Array(_, 0) = cur.ty {
                        self.error(Code::InvalidDeclaration, *span, "array has incomplete element type; only the first dimension may be omitted");
                        cur.ty = Type::Error;
                    }
                    cur.ty = match n {
                        Some(n) if !cur.ty.is_error() => Type::Array(Box::new(cur.ty), n),
                        _ => Type::Error,
                    };
                    cur.spelled = None;
                }
                Derived::Function { span, .. } => {
                    self.unsupported(
                        Code::UnsupportedFunctionPointer,
                        *span,
                        "function pointers are not supported yet (`(*)(...)`)",
                    );
                    cur = QualType::plain(Type::Error);
                }
            }
        }
        cur
    }

    /// The length of an array dimension: a positive integer constant.
    fn array_size(&mut self, e: &ast::Expr) -> Option<u64> {
        let checked = self.value(e);
        if checked.is_error() {
            return None;
        }
        if !checked.ty.is_integer() || checked.ty.is_vector() {
            self.error(
                Code::TypeMismatch,
                e.span,
                format!(
                    "size of array has non-integer type `{}`",
                    self.tn(&checked.ty)
                ),
            );
            return None;
        }
        match self.eval(&checked) {
            Some(v) => {
                let signed = checked.ty.scalar().is_some_and(Scalar::is_signed);
                let raw = v.as_i64();
                if (signed && raw <= 0) || raw == 0 {
                    self.error(
                        Code::InvalidDeclaration,
                        e.span,
                        "array size must be greater than zero",
                    );
                    None
                } else if (raw as u64) > (1u64 << 32) {
                    self.error(Code::InvalidDeclaration, e.span, "array is too large");
                    None
                } else {
                    Some(raw as u64)
                }
            }
            None => {
                self.unsupported(
                    Code::UnsupportedVla,
                    e.span,
                    "variable-length arrays are not supported yet (the size is not a constant)",
                );
                None
            }
        }
    }

    /// The type of a type name (casts, `sizeof`, vector literals).
    pub(crate) fn type_name(&mut self, t: &ast::TypeName) -> QualType {
        let base = self.base_type(&t.spec);
        self.apply_declarator(base, &t.declarator.derived)
    }

    /// An integer constant expression, for enumerators and similar.
    pub(crate) fn integer_constant(&mut self, e: &ast::Expr, what: &str) -> Option<i64> {
        let checked = self.value(e);
        if checked.is_error() {
            return None;
        }
        if !checked.ty.is_integer() || checked.ty.is_vector() {
            self.error(
                Code::NotConstant,
                e.span,
                format!("{what} must be an integer constant expression"),
            );
            return None;
        }
        match self.eval(&checked) {
            Some(v) => Some(v.as_i64()),
            None => {
                self.error(
                    Code::NotConstant,
                    e.span,
                    format!("{what} is not an integer constant expression"),
                );
                None
            }
        }
    }

    // --- items ---------------------------------------------------------------

    pub(crate) fn item(&mut self, item: &ast::Item) {
        match &item.kind {
            ast::ItemKind::Function(f) => self.function(f, item),
            ast::ItemKind::Declaration(d) => self.file_declaration(d),
            ast::ItemKind::Error => {}
        }
    }

    fn file_declaration(&mut self, d: &ast::Declaration) {
        let base = self.base_type(&d.spec);
        if d.spec.storage == Storage::Typedef {
            for decl in &d.declarators {
                self.typedef(&base, decl);
            }
            return;
        }
        for decl in &d.declarators {
            // `int f(int), g(void);` declares functions.
            if let Some(Derived::Function {
                params, variadic, ..
            }) = decl.declarator.derived.last()
            {
                if let Some(name) = &decl.declarator.name {
                    let ret_derived = &decl.declarator.derived[..decl.declarator.derived.len() - 1];
                    let sig = FnDecl {
                        spec: &d.spec,
                        name,
                        return_derived: ret_derived,
                        params,
                        variadic: *variadic,
                        body: None,
                        span: decl.span,
                        node: decl.id,
                    };
                    self.declare_function(sig);
                    continue;
                }
            }
            self.program_scope_variable(&d.spec, &base, decl);
        }
    }

    pub(crate) fn typedef(&mut self, base: &QualType, decl: &ast::InitDeclarator) {
        let Some(name) = &decl.declarator.name else {
            return;
        };
        let q = self.apply_declarator(base.clone(), &decl.declarator.derived);
        if let Some(init) = &decl.init {
            self.error(
                Code::InvalidDeclaration,
                init.span(),
                format!("typedef `{}` cannot have an initializer", name.name),
            );
        }
        // An anonymous struct takes the typedef's name for messages.
        if let Type::Struct(id) = q.ty {
            let def = &mut self.unit.structs[id.0 as usize];
            if def.name == "<anonymous>" {
                def.name = name.name.clone();
                def.is_typedef_name = true;
            }
        }
        // C11 allows repeating a typedef with the same type in the same scope.
        let same = self
            .scopes
            .last()
            .and_then(|s| s.names.get(&name.name))
            .is_some_and(|b| match &b.sym {
                Sym::Typedef(prev) => prev.ty == q.ty,
                _ => false,
            });
        if !same {
            self.declare(&name.name, name.span, Sym::Typedef(Box::new(q)));
        }
    }

    /// A variable outside any function: only `__constant` ones are supported.
    fn program_scope_variable(
        &mut self,
        spec: &DeclSpec,
        base: &QualType,
        decl: &ast::InitDeclarator,
    ) {
        let Some(name) = &decl.declarator.name else {
            if !decl.declarator.derived.is_empty() {
                self.error(
                    Code::InvalidDeclaration,
                    decl.span,
                    "declaration does not declare anything",
                );
            }
            return;
        };
        let q = self.apply_declarator(base.clone(), &decl.declarator.derived);
        let mut space = q.space.map(|s| s.0).or(spec.address_space.map(|s| s.0));
        if q.ty.is_image_or_sampler() && space.is_none() && q.is_const {
            // A `const` sampler is a program constant, as in OpenCL C 2.0.
            space = Some(AddressSpace::Constant);
        }
        if q.ty.is_image_or_sampler() && space != Some(AddressSpace::Constant) {
            // Images are parameters only (reported by `check_object_type`).
            if q.ty.image().is_none() {
                self.error(
                    Code::InvalidDeclaration,
                    name.span,
                    format!(
                        "program-scope sampler `{}` must be `const` or `__constant`",
                        name.name
                    ),
                );
            }
        } else if space != Some(AddressSpace::Constant) && !q.ty.is_error() {
            let what = match space {
                Some(s) => format!("in `{}` address space", s.keyword()),
                None => "outside `__constant`".to_string(),
            };
            self.unsupported(
                Code::UnsupportedProgramScopeVariable,
                name.span,
                format!(
                    "program-scope variables {what} are not supported yet (`{}`)",
                    name.name
                ),
            );
        }
        let space = space.unwrap_or(AddressSpace::Private);
        self.constant_variable(q, name, decl, space);
    }

    /// Declares a `__constant` variable (program scope, or kernel scope) as a
    /// global with a folded initializer. Other program-scope variables (already
    /// reported as unsupported) are declared the same way so that their uses
    /// check normally.
    pub(crate) fn constant_variable(
        &mut self,
        q: QualType,
        name: &ast::Ident,
        decl: &ast::InitDeclarator,
        space: AddressSpace,
    ) -> GlobalId {
        let in_constant = space == AddressSpace::Constant;
        let is_const = q.is_const || in_constant;
        let mut ty = q.ty;
        let init = match &decl.init {
            Some(init) => {
                let (checked, inferred) = self.initializer(&ty, init);
                ty = inferred;
                match checked.and_then(|i| self.fold_init(&i)) {
                    Some(c) => Some(c),
                    None => {
                        if !ty.is_error() && !self.last_error_within(init.span()) {
                            self.error(
                                Code::NotConstant,
                                init.span(),
                                format!("initializer of `__constant` variable `{}` is not a compile-time constant", name.name),
                            );
                        }
                        None
                    }
                }
            }
            None => {
                // Only `__constant` needs an initializer; other program-scope
                // variables were already reported as unsupported.
                if !ty.is_error() && in_constant {
                    self.error(
                        Code::InvalidDeclaration,
                        name.span,
                        format!(
                            "variable `{}` in the `__constant` address space must be initialized",
                            name.name
                        ),
                    );
                }
                None
            }
        };
        if let Type::Array(_, 0) = ty {
            // With an initializer that failed to check, that error suffices.
            if decl.init.is_none() {
                self.error(
                    Code::InvalidDeclaration,
                    name.span,
                    format!("definition of variable `{}` with array type needs an explicit size or an initializer", name.name),
                );
            }
            ty = Type::Error;
        }
        self.check_object_type(&ty, name);
        let id = GlobalId(self.unit.globals.len() as u32);
        self.unit.globals.push(hir::Global {
            name: name.name.clone(),
            ty,
            span: decl.span,
            name_span: name.span,
            node: decl.id,
            space,
            is_const,
            init,
        });
        self.declare(&name.name, name.span, Sym::Global(id));
        id
    }

    /// Whether a diagnostic was already reported inside `span` (to avoid a
    /// second message about the same initializer).
    pub(crate) fn last_error_within(&self, span: Span) -> bool {
        self.diags
            .iter()
            .rev()
            .take(8)
            .any(|d| span.contains(d.span))
    }

    /// Objects must have a complete, non-void type.
    pub(crate) fn check_object_type(&mut self, ty: &Type, name: &ast::Ident) {
        self.check_not_half(ty, name.span);
        if ty.image().is_some() {
            self.error(
                Code::InvalidDeclaration,
                name.span,
                format!(
                    "type `{ty}` can only be used as a function parameter (`{}`)",
                    name.name
                ),
            );
            return;
        }
        let incomplete = match ty {
            Type::Void => true,
            Type::Struct(id) => !self.unit.structs[id.0 as usize].complete,
            _ => false,
        };
        if incomplete {
            self.error(
                Code::InvalidDeclaration,
                name.span,
                format!(
                    "variable `{}` has incomplete type `{}`",
                    name.name,
                    self.tn(ty)
                ),
            );
        }
    }

    /// Objects of type `half` (not pointers to it) need the fp16 extension.
    pub(crate) fn check_not_half(&mut self, ty: &Type, span: Span) {
        let mut t = ty;
        while let Type::Array(elem, _) = t {
            t = elem;
        }
        if t.element() == Some(Scalar::Half) && !t.is_pointer() {
            self.unsupported(
                Code::UnsupportedHalf,
                span,
                format!("`half` values are not supported yet (an object of type `{}`; `half` memory is read and written with `vload_half` and `vstore_half`)", self.tn(ty)),
            );
        }
    }

    fn function(&mut self, f: &ast::Function, item: &ast::Item) {
        let decl = FnDecl {
            spec: &f.spec,
            name: &f.name,
            return_derived: &f.return_derived,
            params: &f.params,
            variadic: f.variadic,
            body: f.body.as_ref(),
            span: item.span,
            node: item.id,
        };
        self.declare_function(decl);
    }

    /// Declares (and, with a body, defines and checks) a function.
    fn declare_function(&mut self, f: FnDecl<'_>) {
        let name = f.name;
        let is_kernel = f.spec.kernel.is_some();
        if f.variadic {
            self.unsupported(
                Code::UnsupportedVariadic,
                name.span,
                format!("variadic functions are not supported yet (`{}`)", name.name),
            );
        }
        if builtins::is_builtin_name(&name.name) || builtins::unsupported(&name.name).is_some() {
            let d = Diagnostic::new(
                Code::Redefinition,
                name.span,
                format!(
                    "`{}` is an OpenCL built-in function and cannot be redefined",
                    name.name
                ),
            )
            .with_note("rename the function");
            self.report(d);
        }
        let base = self.base_type(f.spec);
        let ret_q = self.apply_declarator(base, f.return_derived);
        let ret = ret_q.ty;
        if is_kernel && !ret.is_void() && !ret.is_error() {
            self.error(
                Code::KernelSignature,
                f.spec.base_span,
                format!(
                    "kernel function `{}` must return `void`, not `{}`",
                    name.name,
                    self.tn(&ret)
                ),
            );
        }
        if matches!(ret, Type::Array(..)) {
            self.error(
                Code::InvalidDeclaration,
                name.span,
                format!("function `{}` cannot return an array", name.name),
            );
        }

        // Parameters: checked into locals (a prototype's names are kept too).
        let mut locals: Vec<hir::Local> = Vec::new();
        let mut param_types = Vec::new();
        for p in f.params {
            let base = self.base_type(&p.spec);
            let q = self.apply_declarator(base, &p.declarator.derived);
            // `const float *p` is a pointer to const, not a const parameter;
            // an array parameter decays to a (non-const) pointer.
            let is_const = q.is_const && !matches!(q.ty, Type::Array(..));
            let ty = self.param_type(q, p, is_kernel);
            param_types.push(ty.clone());
            let (pname, name_span) = match &p.declarator.name {
                Some(n) => (n.name.clone(), n.span),
                None => (SmolStr::default(), p.span),
            };
            locals.push(hir::Local {
                name: pname,
                ty,
                span: p.span,
                name_span,
                node: p.id,
                is_const,
                is_param: true,
                space: AddressSpace::Private,
            });
        }

        // One function per name: a prototype and a definition merge.
        let existing = self.scopes[0].names.get(&name.name).cloned();
        let id = match existing {
            Some(Binding {
                sym: Sym::Func(id),
                span: prev_span,
            }) => {
                let sig = &self.sigs[id.0 as usize];
                let conflict = sig.params != param_types || sig.ret != ret;
                let defined = sig.defined;
                if conflict {
                    let d = Diagnostic::new(
                        Code::InvalidDeclaration,
                        name.span,
                        format!("conflicting types for `{}`", name.name),
                    )
                    .with_related(
                        prev_span,
                        format!("previous declaration of `{}` is here", name.name),
                    );
                    self.report(d);
                } else if defined && f.body.is_some() {
                    let d = Diagnostic::new(
                        Code::Redefinition,
                        name.span,
                        format!("redefinition of `{}`", name.name),
                    )
                    .with_related(
                        prev_span,
                        format!("previous definition of `{}` is here", name.name),
                    );
                    self.report(d);
                }
                if f.body.is_none() {
                    return;
                }
                if defined {
                    // A second body: checked for its own errors, but the name
                    // keeps meaning the first definition.
                    self.new_function(
                        name,
                        is_kernel,
                        &ret,
                        &param_types,
                        f.variadic,
                        f.span,
                        f.node,
                    )
                } else {
                    // The definition wins over a conflicting prototype.
                    let sig = &mut self.sigs[id.0 as usize];
                    sig.params = param_types.clone();
                    sig.ret = ret.clone();
                    self.unit.functions[id.0 as usize].make_mut().ret = ret.clone();
                    id
                }
            }
            Some(_) => {
                // A variable or typedef of that name: report and check the body anyway.
                self.declare(
                    &name.name,
                    name.span,
                    Sym::Func(FuncId(self.unit.functions.len() as u32)),
                );
                self.new_function(
                    name,
                    is_kernel,
                    &ret,
                    &param_types,
                    f.variadic,
                    f.span,
                    f.node,
                )
            }
            None => {
                let id = self.new_function(
                    name,
                    is_kernel,
                    &ret,
                    &param_types,
                    f.variadic,
                    f.span,
                    f.node,
                );
                self.scopes[0].names.insert(
                    name.name.clone(),
                    Binding {
                        sym: Sym::Func(id),
                        span: name.span,
                    },
                );
                id
            }
        };
        let attrs = self.function_attrs(f.spec);
        {
            let func = self.unit.functions[id.0 as usize].make_mut();
            func.name_span = name.span;
            func.span = f.span;
            func.node = f.node;
            func.is_kernel = is_kernel;
            func.params = (0..locals.len() as u32).map(LocalId).collect();
            func.locals = locals.clone();
            func.attrs = attrs;
        }
        let Some(body) = f.body else { return };
        self.sigs[id.0 as usize].defined = true;
        // "previous definition" labels point at the definition, not a prototype.
        if let Some(b) = self.scopes[0].names.get_mut(&name.name) {
            if matches!(b.sym, Sym::Func(bound) if bound == id) {
                b.span = name.span;
            }
        }
        if self.skip_bodies {
            return;
        }
        self.defined_last = Some(id);
        let tables = self.table_sizes();

        // The body: parameters live in the body's outermost scope (C).
        self.func = Some(FnCtx {
            id,
            name: name.name.clone(),
            locals,
            ret,
            is_kernel,
            loop_depth: 0,
            switches: Vec::new(),
            breakable: 0,
            callees: Vec::new(),
            const_locals: Default::default(),
        });
        self.push_scope();
        for (i, p) in f.params.iter().enumerate() {
            if let Some(n) = &p.declarator.name {
                self.declare(&n.name, n.span, Sym::Local(LocalId(i as u32)));
            } else {
                self.error(
                    Code::InvalidDeclaration,
                    p.span,
                    "parameter name omitted in a function definition",
                );
            }
        }
        let block = self.block_in_current_scope(body);
        self.pop_scope();
        let ctx = self.func.take().expect("set above");
        let func = self.unit.functions[id.0 as usize].make_mut();
        func.locals = ctx.locals;
        func.callees = ctx.callees;
        func.body = Some(block);
        if self.table_sizes() != tables {
            self.alone = false;
        }
    }

    fn new_function(
        &mut self,
        name: &ast::Ident,
        is_kernel: bool,
        ret: &Type,
        params: &[Type],
        variadic: bool,
        span: Span,
        node: ast::NodeId,
    ) -> FuncId {
        let id = FuncId(self.unit.functions.len() as u32);
        self.unit
            .functions
            .push(crate::moved::Pending::new(hir::Function {
                name: name.name.clone(),
                name_span: name.span,
                span,
                node,
                is_kernel,
                ret: ret.clone(),
                params: Vec::new(),
                locals: Vec::new(),
                body: None,
                callees: Vec::new(),
                attrs: FunctionAttrs::default(),
            }));
        self.sigs.push(FuncSig {
            params: params.to_vec(),
            ret: ret.clone(),
            variadic,
            defined: false,
        });
        self.calls.push(Vec::new());
        id
    }

    /// The type of a parameter (arrays decay), with the kernel rules.
    fn param_type(&mut self, q: QualType, p: &ast::Param, is_kernel: bool) -> Type {
        let mut ty = q.ty;
        if let Type::Array(elem, _) = ty {
            let space = q.space.map_or(AddressSpace::Private, |s| s.0);
            ty = Type::pointer(*elem, space, q.is_const || space == AddressSpace::Constant);
        } else if let Some((space, span)) = q.space {
            // The parameter object itself is always private.
            if space != AddressSpace::Private && !ty.is_error() {
                self.error(
                    Code::AddressSpace,
                    span,
                    "parameter may not be qualified with an address space",
                );
            }
        }
        if ty.is_void() {
            self.error(
                Code::InvalidDeclaration,
                p.span,
                "parameter cannot have type `void`",
            );
            return Type::Error;
        }
        self.check_not_half(&ty, p.span);
        if !is_kernel || ty.is_error() {
            return ty;
        }
        // Kernel parameters: what the host can pass.
        let pname = p
            .declarator
            .name
            .as_ref()
            .map_or(String::new(), |n| format!(" `{}`", n.name));
        if let Some(spelled) = q.spelled {
            self.error(
                Code::KernelSignature,
                p.span,
                format!("kernel parameter{pname} cannot have type `{spelled}`: its size differs between host and device"),
            );
        } else if ty == Type::BOOL {
            self.error(
                Code::KernelSignature,
                p.span,
                format!("kernel parameter{pname} cannot have type `bool`"),
            );
        } else if let Type::Pointer(ptr) = &ty {
            match ptr.space {
                AddressSpace::Global | AddressSpace::Constant | AddressSpace::Local => {
                    if ptr.pointee.is_pointer() {
                        self.error(Code::KernelSignature, p.span, format!("kernel parameter{pname} cannot be a pointer to a pointer"));
                    }
                }
                AddressSpace::Generic => {}
                AddressSpace::Private => self.error(
                    Code::KernelSignature,
                    p.span,
                    format!("pointer kernel parameter{pname} must point to `__global` or `__constant` memory"),
                ),
            }
        } else if let Type::Struct(id) = &ty {
            if self.struct_contains_pointer(*id, 0) {
                self.error(
                    Code::KernelSignature,
                    p.span,
                    format!("struct kernel parameter{pname} may not contain pointers"),
                );
            }
        }
        ty
    }

    fn struct_contains_pointer(&self, id: StructId, depth: u32) -> bool {
        if depth > 64 {
            return false;
        }
        let Some(def) = self.unit.structs.get(id.0 as usize) else {
            return false;
        };
        def.fields.iter().any(|f| {
            let mut t = &f.ty;
            while let Type::Array(e, _) = t {
                t = e;
            }
            match t {
                Type::Pointer(_) => true,
                Type::Struct(inner) => self.struct_contains_pointer(*inner, depth + 1),
                _ => false,
            }
        })
    }

    /// The kernel attributes: `reqd_work_group_size` and
    /// `work_group_size_hint` (three positive 32-bit integer constants) and
    /// `vec_type_hint` (a scalar or vector type). Their arguments were
    /// parsed after preprocessing, so `BLOCK_SIZE` or a `-D` define works;
    /// errors are clang's, at the argument. Other attributes are ignored
    /// (clang only warns about unknown ones).
    fn function_attrs(&mut self, spec: &DeclSpec) -> FunctionAttrs {
        let mut attrs = FunctionAttrs::default();
        for a in &spec.attributes {
            let reqd = attr_is(a, "reqd_work_group_size");
            let hint = attr_is(a, "work_group_size_hint");
            let vec_hint = attr_is(a, "vec_type_hint");
            if !reqd && !hint && !vec_hint {
                continue;
            }
            let name = a.name.name.trim_matches('_');
            if spec.kernel.is_none() {
                self.error(
                    Code::InvalidDeclaration,
                    a.name.span,
                    format!("attribute `{name}` can only be applied to an OpenCL kernel function"),
                );
                continue;
            }
            if vec_hint {
                attrs.vec_type_hint = self.vec_type_hint(a);
                continue;
            }
            if a.exprs.len() != 3 {
                self.error(
                    Code::InvalidDeclaration,
                    a.args.unwrap_or(a.span),
                    format!("`{name}` attribute requires exactly 3 arguments"),
                );
                continue;
            }
            let mut v = [0u32; 3];
            let mut ok = true;
            for (i, e) in a.exprs.iter().enumerate() {
                match self.work_group_size_argument(name, i, e) {
                    Some(x) => v[i] = x,
                    None => ok = false,
                }
            }
            if !ok {
                continue;
            }
            if reqd {
                attrs.reqd_work_group_size = Some(v);
            } else {
                attrs.work_group_size_hint = Some(v);
            }
        }
        attrs
    }

    /// Argument `i` of `reqd_work_group_size`/`work_group_size_hint`: a
    /// positive integer constant that fits 32 bits.
    fn work_group_size_argument(&mut self, name: &str, i: usize, e: &ast::Expr) -> Option<u32> {
        let v = self.attribute_integer(e, || {
            format!("`{name}` attribute requires parameter {i} to be an integer constant")
        })?;
        let problem = if v == 0 {
            format!("`{name}` attribute must be greater than 0")
        } else if v < 0 {
            format!(
                "`{name}` attribute requires a non-negative integral compile time constant expression"
            )
        } else if v > i128::from(u32::MAX) {
            format!(
                "integer constant expression evaluates to value {v} that cannot be represented in a 32-bit unsigned integer type"
            )
        } else {
            return Some(v as u32);
        };
        self.error(Code::InvalidDeclaration, e.span, problem);
        None
    }

    /// The type of `vec_type_hint(T)`: a scalar or vector type other than
    /// `bool` (clang's rule); `None` when it is not.
    fn vec_type_hint(&mut self, a: &ast::Attribute) -> Option<Type> {
        let Some(t) = &a.type_arg else {
            self.error(
                Code::InvalidDeclaration,
                a.args.unwrap_or(a.span),
                "`vec_type_hint` attribute takes one argument",
            );
            return None;
        };
        let ty = self.type_name(t).ty;
        let ok = match &ty {
            Type::Scalar(s) | Type::Vector(s, _) => *s != Scalar::Bool,
            Type::Error => return None,
            _ => false,
        };
        if !ok {
            self.error(
                Code::InvalidDeclaration,
                t.span,
                "a non-vector or non-vectorizable scalar type is an invalid argument to attribute `vec_type_hint`",
            );
            return None;
        }
        Some(ty)
    }

    /// Checks the argument of each `aligned(N)` of a declaration: an
    /// integer constant, a power of two of at most 2^32 bytes, as clang
    /// requires (the attribute itself does not change lanes' layout).
    pub(crate) fn check_aligned(&mut self, spec: &DeclSpec) {
        for a in &spec.attributes {
            if !attr_is(a, "aligned") || a.exprs.is_empty() {
                continue;
            }
            // A specifier shared by several declarators is checked once.
            if !self.first_report(Code::InvalidDeclaration, a.span) {
                continue;
            }
            if a.exprs.len() > 1 {
                self.error(
                    Code::InvalidDeclaration,
                    a.exprs[1].span,
                    "`aligned` attribute takes no more than 1 argument",
                );
                continue;
            }
            let e = &a.exprs[0];
            let Some(v) = self
                .attribute_integer(e, || "`aligned` attribute requires integer constant".into())
            else {
                continue;
            };
            let problem = if v <= 0 || (v & (v - 1)) != 0 {
                "requested alignment is not a power of 2"
            } else if v > 1 << 32 {
                "requested alignment must be 4294967296 bytes or smaller"
            } else {
                continue;
            };
            self.error(Code::InvalidDeclaration, e.span, problem);
        }
    }

    /// An attribute argument as an integer constant (`i128`, so that
    /// `ulong` values and negative ones are both exact); `not_constant`
    /// is the message when it is not one, reported at the argument.
    fn attribute_integer(
        &mut self,
        e: &ast::Expr,
        not_constant: impl FnOnce() -> String,
    ) -> Option<i128> {
        let checked = self.value(e);
        if checked.is_error() {
            return None;
        }
        let value = if checked.ty.is_integer() && !checked.ty.is_vector() {
            self.eval(&checked)
        } else {
            None
        };
        match value {
            Some(hir::ConstValue::Int(bits, s)) if s.is_signed() => Some(i128::from(bits as i64)),
            Some(hir::ConstValue::Int(bits, _)) => Some(i128::from(bits)),
            Some(v) => Some(i128::from(v.as_i64())),
            None => {
                self.error(Code::NotConstant, e.span, not_constant());
                None
            }
        }
    }
}

/// The parts of a function declaration, from an item or a declarator.
pub(crate) struct FnDecl<'t> {
    pub spec: &'t DeclSpec,
    pub name: &'t ast::Ident,
    pub return_derived: &'t [Derived],
    pub params: &'t [ast::Param],
    pub variadic: bool,
    pub body: Option<&'t ast::Block>,
    pub span: Span,
    pub node: ast::NodeId,
}
