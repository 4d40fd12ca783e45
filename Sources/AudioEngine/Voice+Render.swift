import AudioCore
import AudioDSP

/// The per-cycle work of a voice. Render thread only: no allocation, no locks.
extension Voice {
    /// Applies a command addressed to this voice.
    func apply(_ command: EngineCommand, now: Int64, smoothingFrames: Int) {
        switch command {
        case let .play(_, start):
            switch mode {
            case .playing, .scheduled, .waiting: break
            case .idle, .paused:
                if start < 0 {
                    mode = .waiting
                } else {
                    mode = .scheduled
                    startFrame = start
                }
            }
        case .pause:
            if mode != .idle { mode = .paused }
        case .stop:
            mode = .idle
        case let .flush(_, newGeneration, newPosition):
            releaseBlock()
            generation = newGeneration
            streamPosition = 0
            publishPosition(newPosition, frame: .min)
            if mode == .playing { mode = .waiting }
        case let .gain(_, target, frames):
            // Smoothing is for audible changes: a voice not sounding yet takes the value at once,
            // so a start is the same whenever its settings arrived (offline = real time).
            gain.ramp(to: target, frames: isSounding || Int(frames) > smoothingFrames ? Int(frames) : 0)
            publishGain()
        case let .gainAt(_, frame, target, frames):
            pendingGainFrame = max(0, frame)
            pendingGainTarget = target
            pendingGainFrames = Int(max(0, frames))
        case let .metering(_, enabled):
            if enabled != chain.meter.isEnabled {
                chain.meter.reset()
                chain.meter.isEnabled = enabled
            }
        case let .pan(_, newMatrix):
            matrixTarget = newMatrix
            matrixRemaining = isSounding ? smoothingFrames : 0
            if !isSounding { matrix = newMatrix }
        case let .routing(_, newRouting):
            routing = newRouting
        case .attach, .detach, .addBus:
            break
        }
    }

    /// Whether the voice's audio is being heard (it has started and is not paused).
    private var isSounding: Bool { mode == .playing }

    /// Whether the voice holds the device timeline running (SPEC 2.1).
    var isActive: Bool { mode != .idle }

    /// Mixes this cycle's frames [now, now + frames) into `mix` (interleaved, `outChannels`).
    /// With `waitForData` (offline rendering) a missing block is waited for instead of skipped.
    /// When a stage is active the contribution goes through `scratch` and the chain first.
    func render(into mix: UnsafeMutablePointer<Float>, frames: Int, outChannels: Int, now: Int64, waitForData: PosixSemaphore?) {
        guard chain.isActive && frames <= scratchFrames else {
            _ = renderSplittingAtPendingGain(into: mix, frames: frames, outChannels: outChannels, now: now, waitForData: waitForData)
            return
        }
        let count = frames * outChannels
        scratch.update(repeating: 0, count: count)
        if renderSplittingAtPendingGain(into: scratch, frames: frames, outChannels: outChannels, now: now, waitForData: waitForData) {
            chain.process(scratch, frames: frames, channels: outChannels)
            for i in 0..<count { mix[i] += scratch[i] }
        } else {
            chain.processSilence(frames: frames)
        }
    }

    /// `renderSource`, split in two at the device frame where a pending scheduled ramp
    /// (`gainAt`) starts, so the ramp's first value lands on exactly that frame.
    private func renderSplittingAtPendingGain(into mix: UnsafeMutablePointer<Float>, frames: Int, outChannels: Int, now: Int64,
                                              waitForData: PosixSemaphore?) -> Bool {
        guard pendingGainFrame >= 0 else {
            return renderSource(into: mix, frames: frames, outChannels: outChannels, now: now, waitForData: waitForData)
        }
        let offset = pendingGainFrame - now
        if offset >= Int64(frames) {
            return renderSource(into: mix, frames: frames, outChannels: outChannels, now: now, waitForData: waitForData)
        }
        if offset <= 0 {
            startPendingGain()
            return renderSource(into: mix, frames: frames, outChannels: outChannels, now: now, waitForData: waitForData)
        }
        let k = Int(offset)
        let first = renderSource(into: mix, frames: k, outChannels: outChannels, now: now, waitForData: waitForData)
        startPendingGain()
        let second = renderSource(into: mix + k * outChannels, frames: frames - k, outChannels: outChannels, now: now + Int64(k),
                                  waitForData: waitForData)
        return first || second
    }

    private func startPendingGain() {
        gain.ramp(to: pendingGainTarget, frames: pendingGainFrames)
        pendingGainFrame = -1
    }

    /// Adds the voice's frames for [now, now + frames) to `mix`; false when it added nothing
    /// (not playing yet, paused, stopped).
    private func renderSource(into mix: UnsafeMutablePointer<Float>, frames: Int, outChannels: Int, now: Int64, waitForData: PosixSemaphore?) -> Bool {
        switch mode {
        case .idle, .paused:
            dropStale()
            return false
        case .waiting:
            dropStale()
            guard peekCurrent(wait: waitForData) != nil else { return false }
            origin = now - streamPosition
            mode = .playing
            markStarted()
        case .scheduled:
            if startFrame >= now + Int64(frames) {
                dropStale()
                return false
            }
            origin = startFrame - streamPosition
            mode = .playing
            markStarted()
        case .playing:
            break
        }

        var i = max(0, Int(origin + streamPosition - now))
        var lastHeader: BlockHeader? = nil
        while i < frames {
            let wanted = now + Int64(i) - origin
            if block < 0 {
                guard let next = popCurrent(wait: waitForData) else {
                    starvedCycles.add(1, ordering: .relaxed)
                    break
                }
                block = next
                blockOffset = 0
            }
            let header = ring.headers[Int(block)]
            if header.flags & BlockHeader.end != 0 {
                releaseBlock()
                finish(failed: false)
                return true
            }
            if header.flags & BlockHeader.error != 0 {
                releaseBlock()
                finish(failed: true)
                return true
            }
            let blockFrames = Int(header.frames)
            let blockEnd = header.streamFrame + Int64(blockFrames)
            if blockEnd <= wanted {  // late: these frames' time has passed
                streamPosition = blockEnd
                releaseBlock()
                continue
            }
            let here = header.streamFrame + Int64(blockOffset)
            if here < wanted {
                blockOffset = Int(wanted - header.streamFrame)
            } else if here > wanted {  // a gap in the stream: leave silence until it starts
                i += min(frames - i, Int(here - wanted))
                continue
            }
            let n = min(frames - i, blockFrames - blockOffset)
            mixFrames(ring.samples(block) + blockOffset * soundChannels, count: n, into: mix + i * outChannels, outChannels: outChannels)
            blockOffset += n
            i += n
            streamPosition = header.streamFrame + Int64(blockOffset)
            lastHeader = header
            if blockOffset == blockFrames { releaseBlock() }
        }
        if let h = lastHeader {
            // The position of the frame the device plays next: `positionLead` frames before the
            // end of what was mixed (a bus mixes ahead of the device by its filter).
            let at = max(0, streamPosition - positionLead)
            var p = h.sourceFrame + Double(at - h.streamFrame) * h.sourceStep
            if sourceLength > 0 {
                while p >= sourceLength { p -= sourceLength }
                while p < 0 { p += sourceLength }
            }
            publishPosition(p, frame: origin + at)
        }
        // Keep parameters moving even in frames that had no audio, so ramps stay on time.
        if i < frames { gain.advance(frames - i) }
        return true
    }

    /// Publishes the gain for the control plane (after each cycle).
    func publishGain() {
        let bits = UInt64(gain.current.bitPattern) | (gain.isRamping ? 1 << 32 : 0)
        publishedGain.store(bits, ordering: .releasing)
    }

    private func finish(failed: Bool) {
        mode = .idle
        if failed { failedCount.add(1, ordering: .releasing) } else { finishedCount.add(1, ordering: .releasing) }
    }

    func releaseBlock() {
        if block >= 0 {
            ring.free.push(block)
            block = -1
            blockOffset = 0
        }
    }

    /// Drops queued blocks of older generations.
    private func dropStale() {
        while let b = ring.filled.peek(), ring.headers[Int(b)].generation < generation {
            _ = ring.filled.pop()
            ring.free.push(b)
        }
    }

    /// The next block of the current generation, without taking it.
    private func peekCurrent(wait: PosixSemaphore?) -> BlockHeader? {
        while true {
            dropStale()
            if let b = ring.filled.peek() {
                let h = ring.headers[Int(b)]
                return h.generation == generation ? h : nil
            }
            guard let wait else { return nil }
            wait.wait(milliseconds: 5)
        }
    }

    private func popCurrent(wait: PosixSemaphore?) -> Int32? {
        guard peekCurrent(wait: wait) != nil else { return nil }
        return ring.filled.pop()
    }

    /// Works on local copies of the gain ramp and pan matrix and stores them back once:
    /// touching the class's stored properties per frame costs a dynamic exclusivity check
    /// (swift_beginAccess) each time, which was ~40% of the mix.
    @inline(__always)
    private func mixFrames(_ source: UnsafeMutablePointer<Float>, count: Int, into out: UnsafeMutablePointer<Float>, outChannels: Int) {
        let sc = soundChannels
        var gain = self.gain
        defer { self.gain = gain }
        if routing.panned {
            let stereo = sc == 2
            var m = matrix
            let target = matrixTarget
            var remaining = matrixRemaining
            for f in 0..<count {
                if remaining > 0 {
                    let k = 1 / Float(remaining)
                    m.ll += (target.ll - m.ll) * k
                    m.rl += (target.rl - m.rl) * k
                    m.lr += (target.lr - m.lr) * k
                    m.rr += (target.rr - m.rr) * k
                    remaining -= 1
                    if remaining == 0 { m = target }
                }
                let g = gain.next()
                let l = source[f * sc]
                let r = stereo ? source[f * sc + 1] : 0
                out[f * outChannels] += g * (m.ll * l + m.rl * r)
                out[f * outChannels + 1] += g * (m.lr * l + m.rr * r)
            }
            matrix = m
            matrixRemaining = remaining
        } else {
            let scale = routing.scale
            let routing = self.routing
            let channels = min(sc, ChannelRouting.maximumChannels)
            for f in 0..<count {
                let g = gain.next() * scale
                for c in 0..<channels {
                    let target = routing.target(c)
                    if target < outChannels { out[f * outChannels + target] += g * source[f * sc + c] }
                }
            }
        }
    }

    /// Counts a start and notes when it was rendered (clock_gettime is a vDSO call: no syscall, no lock).
    private func markStarted() {
        startedAtNanoseconds.store(MonotonicClock.nanoseconds(), ordering: .relaxed)
        startedCount.add(1, ordering: .releasing)
    }
}
