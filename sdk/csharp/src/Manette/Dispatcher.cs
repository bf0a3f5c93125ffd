// Where the SDK's events (OnAction, OnEtat, OnError, session changes) run: on the
// SynchronizationContext captured when the client was made (Godot's main thread), else
// queued until the game calls ManetteClient.DispatchEvents() (Unity's Update, a console loop).
using System;
using System.Collections.Generic;
using System.Threading;

namespace Manette
{
    public enum EventDelivery
    {
        /// <summary>The SynchronizationContext current when the client is made, if any; else Queued.</summary>
        Auto,
        /// <summary>Queued until DispatchEvents() / Poll() is called (on the thread that calls it).</summary>
        Queued,
        /// <summary>Raised at once on the SDK's own (thread-pool) threads: the handlers must be thread-safe.</summary>
        Immediate,
    }

    internal sealed class Dispatcher
    {
        readonly SynchronizationContext context;
        readonly bool immediate;
        readonly Queue<Action> queue = new Queue<Action>();
        /// <summary>An exception thrown by a handler: reported here, never lost nor fatal to the SDK.</summary>
        public event Action<Exception> HandlerFailed;

        public Dispatcher(EventDelivery mode, SynchronizationContext given)
        {
            if (mode == EventDelivery.Immediate) immediate = true;
            else if (mode == EventDelivery.Auto) context = given ?? SynchronizationContext.Current;
        }

        public bool UsesQueue { get { return !immediate && context == null; } }

        public void Post(Action a)
        {
            if (a == null) return;
            if (immediate) { Run(a); return; }
            if (context != null) { context.Post(_ => Run(a), null); return; }
            lock (queue) queue.Enqueue(a);
        }

        /// <summary>Runs the queued events, in order, on the calling thread; answers how many ran.</summary>
        public int Drain()
        {
            int n = 0;
            for (;;)
            {
                Action a;
                lock (queue)
                {
                    if (queue.Count == 0) return n;
                    a = queue.Dequeue();
                }
                Run(a);
                n++;
            }
        }

        void Run(Action a)
        {
            try { a(); }
            catch (Exception err)
            {
                var h = HandlerFailed;
                if (h != null) { try { h(err); } catch (Exception) { } }
                else Console.Error.WriteLine("Manette: an event handler threw: " + err);
            }
        }
    }
}
