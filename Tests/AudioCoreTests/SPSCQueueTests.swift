import AudioCore
import Testing

@Suite struct SPSCQueueTests {
    @Test func pushPopInOrderAndFull() {
        let q = SPSCQueue<Int>(minimumCapacity: 3)
        #expect(q.capacity == 4)
        for i in 0..<4 { #expect(q.push(i)) }
        #expect(!q.push(99))
        #expect(q.peek() == 0)
        for i in 0..<4 { #expect(q.pop() == i) }
        #expect(q.pop() == nil)
    }

    @Test func crossThreadTransfersEveryValueOnce() async {
        let q = SPSCQueue<Int>(minimumCapacity: 64)
        let n = 200_000
        let producer = Task.detached {
            var i = 0
            while i < n { if q.push(i) { i += 1 } }
        }
        var expected = 0
        while expected < n {
            if let v = q.pop() {
                #expect(v == expected)
                if v != expected { break }
                expected += 1
            }
        }
        await producer.value
        #expect(expected == n)
    }
}
