/// Extra work added to every measured operation on request (`--add-allocation-loop`): allocates and
/// frees `arrays` arrays of 16 integers. It exists to show that the guard fails when an
/// operation's cost grows; the product never runs it.
struct AllocationLoop: Sendable {
    /// Arrays allocated and freed per operation; 0 adds nothing.
    let arrays: Int

    /// Allocates and frees the arrays.
    func run() {
        guard arrays > 0 else { return }
        var sum = 0
        for index in 0..<arrays {
            let array = [Int](repeating: index, count: 16)
            sum &+= array[index % array.count]
        }
        keep(sum)
    }

    /// Uses the sum where the compiler cannot see it, so the loop is never removed.
    @inline(never)
    private func keep(_ value: Int) {
        withExtendedLifetime(value) {}
    }
}
