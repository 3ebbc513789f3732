use cuphase::prelude::*;

#[repr(C)]
#[derive(Clone, Copy, DeviceStruct)]
struct V2 {
    x: f32,
    y: f32,
}

#[device]
impl V2 {
    fn dot(self, o: V2) -> f32 {
        self.x * o.x + self.y * o.y
    }
    fn grow(&mut self) {
        self.x += 1.0;
    }
}

#[kernel]
fn mut_self_of_an_element(vs: &mut [V2]) {
    let i = global_idx().x as usize;
    // A `&mut self` method changes a struct variable, not an element in memory.
    vs[i].grow();
}

#[kernel]
fn not_a_method(out: &mut [f32], vs: &[V2]) {
    let i = global_idx().x as usize;
    let v = vs[i];
    out[i] = v.dot(v) + v.norm();
}

fn main() {}
