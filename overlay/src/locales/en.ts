import type { Catalogue } from './catalogue.ts';

export const en: Catalogue = {
  lang: 'en',
  content: {
    sleep: {
      under8: {
        headline: 'Shh… it’s sleepy time',
        description:
          'The screen is taking a nap now, and you can rest too. Your grown-up knows when it wakes up again. Want to blow up a calm balloon with your breath?',
      },
      eight12: {
        headline: 'Time to wind down',
        description:
          'Screen time is over for now: it’s time to rest. A good rest helps you feel great, and your parent can tell you when the device is ready again.',
      },
      teen: {
        headline: 'Sleep mode is on',
        description:
          'This device is in sleep mode for now. It comes back when your parent’s settings allow it. If you need it for something specific, say why below.',
      },
    },
    filtered: {
      under8: {
        headline: 'Oops! This page isn’t for now',
        description:
          'This page is not one of your places to visit. You can draw a picture here instead, or ask a grown-up for help.',
      },
      eight12: {
        headline: 'This website is blocked',
        description:
          'This site isn’t on your allowed list right now. If you think it should be, ask your parent to take a look.',
      },
      teen: {
        headline: 'This site is blocked',
        description:
          'Your family’s filter settings block this domain. If you need it for school or anything else, explain why below and your parent will see it.',
      },
    },
    locked: {
      under8: {
        headline: 'All done for today!',
        description:
          'You used up all your screen time for today. The screen is having a rest now. Let’s take big balloon breaths or draw something!',
      },
      eight12: {
        headline: 'Screen time is up',
        description:
          'You’ve used all of today’s screen time. Take a break: your time starts fresh tomorrow. Need a few more minutes? Ask your parent.',
      },
      teen: {
        headline: 'You’ve reached today’s limit',
        description:
          'Your screen-time allowance for today is used up and resets tomorrow. If you need extra time, send your parent a request with the reason.',
      },
    },
    signup: {
      under8: {
        headline: 'Let’s ask a grown-up first',
        description:
          'This website wants you to make an account. A grown-up needs to say yes before you can sign up.',
      },
      eight12: {
        headline: 'Signing up needs a parent’s OK',
        description:
          'This site is asking you to create an account. Your parent approves new accounts first. Send a request, and we’ll take you back as soon as they say yes.',
      },
      teen: {
        headline: 'New accounts need approval',
        description:
          'Creating an account on this site needs your parent’s approval. Send a request; once it’s approved you’ll go straight back to the sign-up page.',
      },
    },
    clock_tamper: {
      under8: {
        headline: 'Uh-oh, the clock got mixed up',
        description:
          'The clock on this device shows the wrong time, so the screen is taking a break. A grown-up can fix it.',
      },
      eight12: {
        headline: 'The clock needs checking',
        description:
          'The time on this device doesn’t look right, so it’s locked for now. Ask your parent to check the clock and unlock it.',
      },
      teen: {
        headline: 'Locked: clock change detected',
        description:
          'The system clock was changed or doesn’t match the real time, so this device stays locked until your parent clears it. Let them know if it was a mistake.',
      },
    },
  },
  paused: {
    under8: {
      headline: 'Your grown-up paused the screen',
      description:
        'A grown-up has paused the screen for a little while. Let’s take big balloon breaths or draw something while you wait!',
    },
    eight12: {
      headline: 'Your parent paused this device',
      description:
        'Your parent has paused the screen for now. Your screen time isn’t used up: they will start it again when it’s time. Want to ask about it? Pick a message.',
    },
    teen: {
      headline: 'Paused by your parent',
      description:
        'Your parent paused this device for now; your screen-time allowance isn’t used up. If you need it back for something, send them a message with the reason.',
    },
  },
  presets: {
    sleep: {
      under8: ['Can I have 5 more minutes?', 'I need help', 'Good night!'],
      eight12: ['Can I have 10 more minutes?', 'I need it for homework', 'Can we talk about bedtime?'],
    },
    filtered: {
      under8: ['Can I see this page?', 'I need help', 'I clicked by mistake'],
      eight12: ['Please unblock this site', 'I need this for school', 'I think this was blocked by mistake'],
    },
    locked: {
      under8: ['Can I have more time?', 'I’m almost done!', 'I need help'],
      eight12: ['Can I have 15 more minutes?', 'I need time for homework', 'Can I finish and save my game?'],
    },
    clock_tamper: {
      under8: ['Please fix the clock', 'I need help'],
      eight12: ['Please check the clock', 'I didn’t change anything', 'Can you unlock it?'],
    },
  },
  pausedPresets: {
    under8: ['Can I play again?', 'I need help', 'Okay!'],
    eight12: ['Can I have it back, please?', 'I need it for homework', 'Can we talk about it?'],
  },
  ui: {
    deviceLabel: 'Device',
    siteLabel: 'Website',
    noteTitle: {
      under8: 'A message from your grown-up',
      eight12: 'A note from your parent',
      teen: 'Note from your parent',
    },
    breathingTitle: {
      under8: 'Balloon breathing',
      eight12: 'Take a calm breath',
      teen: 'Breathing exercise',
    },
    breathingHint: {
      under8: 'Watch the balloon: it grows when you breathe in and shrinks when you blow out.',
      eight12: 'Breathe in as the circle grows, out as it shrinks.',
      teen: 'Match your breath to the circle. A few rounds help you reset.',
    },
    breathingHintStill: 'Follow the words at your own pace.',
    cues: {
      in: { under8: 'Smell the flower', eight12: 'Breathe in', teen: 'Breathe in' },
      hold: { under8: 'Hold it', eight12: 'Hold', teen: 'Hold' },
      out: { under8: 'Blow out the candle', eight12: 'Breathe out', teen: 'Breathe out' },
      rest: { under8: 'Rest', eight12: 'Rest', teen: 'Rest' },
    },
    pause: 'Pause breathing',
    resume: 'Start breathing',
    drawingTitle: { under8: 'Draw a picture', eight12: 'Doodle pad', teen: 'Sketchpad' },
    canvasLabel: 'Drawing area: draw with a mouse, a finger or a pen',
    colours: 'Colours',
    colourNames: ['Pencil', 'Coral', 'Sunflower', 'Leaf', 'Sky', 'Plum'],
    eraser: 'Eraser',
    clear: 'Clear',
    talkTitle: { under8: 'Ask a grown-up', eight12: 'Ask your parent', teen: 'Message your parent' },
    talkIntro: {
      under8: 'Tap a button and your grown-up gets the message.',
      eight12: 'Pick a message. Your parent will see it straight away.',
      teen: 'Your parent sees this in their dashboard.',
    },
    messageLabel: 'Your message',
    messagePlaceholder: 'What do you need, and why?',
    counter: '{n} / {max}',
    counterOver: '{n} / {max}: too long',
    send: 'Send message',
    sending: 'Sending…',
    sent: {
      under8: 'Sent! Your grown-up will see your message.',
      eight12: 'Sent! Your parent will see your message.',
      teen: 'Message sent to your parent.',
    },
    failed: {
      under8: 'Oops, that didn’t work. Let’s try again in a moment.',
      eight12: 'Hmm, the message didn’t go through. Please try again in a moment.',
      teen: 'Couldn’t send your message. Please try again in a moment.',
    },
    preview: 'Messages can’t be sent from this preview.',
    empty: 'Please write a message first.',
    tooLong: 'Please keep your message to {max} characters.',
    sentMark: 'sent',
    signupTitle: { under8: 'Ask to sign up', eight12: 'Ask to sign up', teen: 'Request approval' },
    signupIntro: {
      under8: 'Press the button and a grown-up will get your question.',
      eight12: 'Your parent gets a request and can say yes from their dashboard.',
      teen: 'Your parent can approve it once or for good from their dashboard.',
    },
    signupButton: 'Request Sign-up Approval',
    signupRequesting: 'Sending your request…',
    signupWaiting: {
      under8: 'Waiting for a parent to say yes…',
      eight12: 'Waiting for a parent to approve…',
      teen: 'Waiting for a parent to approve. This page checks again by itself.',
    },
    signupApproved: 'Approved! Taking you back…',
    signupApprovedNoUrl: 'Approved! You can go back and sign up now.',
    signupFailed: {
      under8: 'Oops, that didn’t work. Let’s try again in a moment.',
      eight12: 'The request didn’t go through. Please try again in a moment.',
      teen: 'Couldn’t send the request. Please try again in a moment.',
    },
    signupUnavailable: 'Sign-up requests can’t be sent from this screen.',
    signupUnreachable: {
      under8: 'Hearth can’t check this right now, so signing up waits a little. Try again soon.',
      eight12:
        'Hearth on this computer isn’t answering, so sign-ups wait until it is back. Try again in a moment.',
      teen: 'Hearth on this computer can’t be reached, so new sign-ups are held until it answers again.',
    },
    signupDeclined: {
      under8: 'A grown-up said not this time. You can talk to them about it.',
      eight12: 'Your parent said no this time. You can ask again or talk to them.',
      teen: 'Your parent declined this request. You can ask again if something changed.',
    },
  },
};
