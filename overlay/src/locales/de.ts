import type { Catalogue } from './catalogue.ts';

export const de: Catalogue = {
  lang: 'de',
  content: {
    sleep: {
      under8: {
        headline: 'Pssst… jetzt ist Schlafenszeit',
        description:
          'Der Bildschirm macht jetzt ein Nickerchen, und du darfst dich auch ausruhen. Deine Erwachsenen wissen, wann er wieder aufwacht. Magst du mit deinem Atem einen ruhigen Ballon aufpusten?',
      },
      eight12: {
        headline: 'Zeit, zur Ruhe zu kommen',
        description:
          'Die Bildschirmzeit ist jetzt vorbei: Zeit, dich auszuruhen. Guter Schlaf tut dir gut, und deine Eltern sagen dir, wann das Gerät wieder bereit ist.',
      },
      teen: {
        headline: 'Der Ruhemodus ist aktiv',
        description:
          'Dieses Gerät ist gerade im Ruhemodus. Es ist wieder verfügbar, wenn die Einstellungen deiner Eltern es erlauben. Wenn du es für etwas Bestimmtes brauchst, schreib unten, warum.',
      },
    },
    filtered: {
      under8: {
        headline: 'Hoppla! Diese Seite ist gerade nicht erlaubt',
        description:
          'Diese Seite gehört nicht zu deinen Orten im Internet. Du kannst hier stattdessen ein Bild malen oder einen Erwachsenen um Hilfe bitten.',
      },
      eight12: {
        headline: 'Diese Website ist gesperrt',
        description:
          'Diese Seite steht gerade nicht auf deiner Liste der erlaubten Seiten. Wenn du meinst, dass sie dazugehören sollte, bitte deine Eltern, sie sich anzusehen.',
      },
      teen: {
        headline: 'Diese Seite ist gesperrt',
        description:
          'Die Filtereinstellungen deiner Familie sperren diese Domain. Wenn du sie für die Schule oder etwas anderes brauchst, erklär unten, warum – deine Eltern sehen deine Nachricht.',
      },
    },
    locked: {
      under8: {
        headline: 'Für heute ist Schluss!',
        description:
          'Deine Bildschirmzeit für heute ist aufgebraucht. Der Bildschirm ruht sich jetzt aus. Lass uns große Ballon-Atemzüge machen oder etwas malen!',
      },
      eight12: {
        headline: 'Die Bildschirmzeit ist um',
        description:
          'Du hast deine Bildschirmzeit für heute aufgebraucht. Mach eine Pause – morgen geht es wieder von vorne los. Brauchst du noch ein paar Minuten? Frag deine Eltern.',
      },
      teen: {
        headline: 'Dein Tageslimit ist erreicht',
        description:
          'Deine Bildschirmzeit für heute ist aufgebraucht und wird morgen zurückgesetzt. Wenn du mehr Zeit brauchst, schick deinen Eltern eine Anfrage mit Begründung.',
      },
    },
    signup: {
      under8: {
        headline: 'Erst fragen wir einen Erwachsenen',
        description:
          'Diese Website möchte, dass du ein Konto anlegst. Ein Erwachsener muss erst Ja sagen, bevor du dich anmelden kannst.',
      },
      eight12: {
        headline: 'Für die Anmeldung brauchst du ein OK',
        description:
          'Diese Seite möchte, dass du ein Konto erstellst. Neue Konten müssen deine Eltern zuerst erlauben. Schick eine Anfrage – sobald sie Ja sagen, bringen wir dich zurück.',
      },
      teen: {
        headline: 'Neue Konten brauchen eine Freigabe',
        description:
          'Für ein Konto auf dieser Seite brauchst du die Freigabe deiner Eltern. Schick eine Anfrage; sobald sie genehmigt ist, geht es direkt zurück zur Anmeldeseite.',
      },
    },
    clock_tamper: {
      under8: {
        headline: 'Huch, die Uhr ist durcheinander',
        description:
          'Die Uhr auf diesem Gerät zeigt die falsche Zeit, deshalb macht der Bildschirm eine Pause. Ein Erwachsener kann das in Ordnung bringen.',
      },
      eight12: {
        headline: 'Die Uhr muss überprüft werden',
        description:
          'Die Uhrzeit auf diesem Gerät stimmt nicht, deshalb ist es vorerst gesperrt. Bitte deine Eltern, die Uhr zu prüfen und das Gerät zu entsperren.',
      },
      teen: {
        headline: 'Gesperrt: Uhrzeitänderung erkannt',
        description:
          'Die Systemuhr wurde verstellt oder weicht von der echten Zeit ab. Das Gerät bleibt gesperrt, bis deine Eltern die Sperre aufheben. Sag ihnen Bescheid, falls es ein Versehen war.',
      },
    },
  },
  paused: {
    under8: {
      headline: 'Der Bildschirm macht eine Pause',
      description:
        'Ein Erwachsener hat den Bildschirm für eine Weile angehalten. Magst du große Ballon-Atemzüge machen oder etwas malen, während du wartest?',
    },
    eight12: {
      headline: 'Deine Eltern haben das Gerät pausiert',
      description:
        'Deine Eltern haben den Bildschirm gerade angehalten. Deine Bildschirmzeit ist nicht aufgebraucht: Sie schalten ihn wieder ein, wenn es so weit ist. Möchtest du sie etwas fragen? Wähle eine Nachricht.',
    },
    teen: {
      headline: 'Von deinen Eltern pausiert',
      description:
        'Deine Eltern haben dieses Gerät vorerst pausiert; deine Bildschirmzeit ist nicht aufgebraucht. Wenn du es für etwas brauchst, schick ihnen eine Nachricht mit dem Grund.',
    },
  },
  presets: {
    sleep: {
      under8: ['Darf ich noch 5 Minuten?', 'Ich brauche Hilfe', 'Gute Nacht!'],
      eight12: [
        'Darf ich noch 10 Minuten?',
        'Ich brauche es für die Hausaufgaben',
        'Können wir über die Schlafenszeit reden?',
      ],
    },
    filtered: {
      under8: ['Darf ich diese Seite sehen?', 'Ich brauche Hilfe', 'Ich habe mich verklickt'],
      eight12: [
        'Bitte gib diese Seite frei',
        'Ich brauche sie für die Schule',
        'Ich glaube, die Seite wurde aus Versehen gesperrt',
      ],
    },
    locked: {
      under8: ['Darf ich noch ein bisschen?', 'Ich bin fast fertig!', 'Ich brauche Hilfe'],
      eight12: [
        'Darf ich noch 15 Minuten?',
        'Ich brauche Zeit für die Hausaufgaben',
        'Darf ich noch mein Spiel speichern?',
      ],
    },
    clock_tamper: {
      under8: ['Bitte stell die Uhr richtig', 'Ich brauche Hilfe'],
      eight12: ['Bitte prüf die Uhr', 'Ich habe nichts verstellt', 'Kannst du das Gerät entsperren?'],
    },
  },
  pausedPresets: {
    under8: ['Darf ich wieder spielen?', 'Ich brauche Hilfe', 'Okay!'],
    eight12: [
      'Kann ich es bitte wiederhaben?',
      'Ich brauche es für die Hausaufgaben',
      'Können wir darüber reden?',
    ],
  },
  ui: {
    deviceLabel: 'Gerät',
    siteLabel: 'Website',
    noteTitle: {
      under8: 'Eine Nachricht für dich',
      eight12: 'Eine Notiz von deinen Eltern',
      teen: 'Notiz von deinen Eltern',
    },
    breathingTitle: { under8: 'Ballon-Atmen', eight12: 'Ruhig durchatmen', teen: 'Atemübung' },
    breathingHint: {
      under8: 'Schau auf den Ballon: Er wird groß, wenn du einatmest, und klein, wenn du auspustest.',
      eight12: 'Atme ein, während der Kreis wächst, und aus, während er schrumpft.',
      teen: 'Atme im Takt des Kreises. Ein paar Runden helfen beim Runterkommen.',
    },
    breathingHintStill: 'Folge den Worten in deinem eigenen Tempo.',
    cues: {
      in: { under8: 'Riech an der Blume', eight12: 'Einatmen', teen: 'Einatmen' },
      hold: { under8: 'Luft anhalten', eight12: 'Halten', teen: 'Halten' },
      out: { under8: 'Puste die Kerze aus', eight12: 'Ausatmen', teen: 'Ausatmen' },
      rest: { under8: 'Ausruhen', eight12: 'Pause', teen: 'Pause' },
    },
    pause: 'Atemübung anhalten',
    resume: 'Atemübung starten',
    drawingTitle: { under8: 'Mal ein Bild', eight12: 'Kritzelblock', teen: 'Skizzenblock' },
    canvasLabel: 'Malfläche: mit Maus, Finger oder Stift zeichnen',
    colours: 'Farben',
    colourNames: ['Bleistift', 'Koralle', 'Sonnenblume', 'Blatt', 'Himmel', 'Pflaume'],
    eraser: 'Radierer',
    clear: 'Alles löschen',
    talkTitle: {
      under8: 'Frag einen Erwachsenen',
      eight12: 'Frag deine Eltern',
      teen: 'Schreib deinen Eltern',
    },
    talkIntro: {
      under8: 'Tipp auf einen Knopf, dann bekommt ein Erwachsener deine Nachricht.',
      eight12: 'Wähl eine Nachricht aus. Deine Eltern sehen sie sofort.',
      teen: 'Deine Eltern sehen das in ihrer Übersicht.',
    },
    messageLabel: 'Deine Nachricht',
    messagePlaceholder: 'Was brauchst du, und warum?',
    counter: '{n} / {max}',
    counterOver: '{n} / {max}: zu lang',
    send: 'Nachricht senden',
    sending: 'Wird gesendet…',
    sent: {
      under8: 'Gesendet! Ein Erwachsener sieht jetzt deine Nachricht.',
      eight12: 'Gesendet! Deine Eltern sehen deine Nachricht.',
      teen: 'Nachricht an deine Eltern gesendet.',
    },
    failed: {
      under8: 'Hoppla, das hat nicht geklappt. Versuch es gleich noch einmal.',
      eight12: 'Hm, die Nachricht ist nicht angekommen. Bitte versuch es gleich noch einmal.',
      teen: 'Die Nachricht konnte nicht gesendet werden. Bitte versuch es gleich noch einmal.',
    },
    preview: 'Aus dieser Vorschau können keine Nachrichten gesendet werden.',
    empty: 'Bitte schreib zuerst eine Nachricht.',
    tooLong: 'Bitte fasse dich kürzer: höchstens {max} Zeichen.',
    sentMark: 'gesendet',
    signupTitle: { under8: 'Um Erlaubnis fragen', eight12: 'Um Anmeldung bitten', teen: 'Freigabe anfragen' },
    signupIntro: {
      under8: 'Drück auf den Knopf, dann bekommt ein Erwachsener deine Frage.',
      eight12: 'Deine Eltern bekommen eine Anfrage und können in ihrer Übersicht Ja sagen.',
      teen: 'Deine Eltern können die Anmeldung in ihrer Übersicht einmalig oder dauerhaft freigeben.',
    },
    signupButton: 'Anmeldung freigeben lassen',
    signupRequesting: 'Deine Anfrage wird gesendet…',
    signupWaiting: {
      under8: 'Wir warten, bis ein Erwachsener Ja sagt…',
      eight12: 'Wir warten auf die Freigabe deiner Eltern…',
      teen: 'Warte auf die Freigabe deiner Eltern. Diese Seite prüft das von selbst.',
    },
    signupApproved: 'Freigegeben! Es geht zurück…',
    signupApprovedNoUrl: 'Freigegeben! Du kannst zurückgehen und dich jetzt anmelden.',
    signupFailed: {
      under8: 'Hoppla, das hat nicht geklappt. Versuch es gleich noch einmal.',
      eight12: 'Die Anfrage ist nicht angekommen. Bitte versuch es gleich noch einmal.',
      teen: 'Die Anfrage konnte nicht gesendet werden. Bitte versuch es gleich noch einmal.',
    },
    signupUnavailable: 'Von diesem Bildschirm aus können keine Anmeldeanfragen gesendet werden.',
    signupUnreachable: {
      under8:
        'Hearth kann das gerade nicht prüfen, deshalb wartet die Anmeldung kurz. Versuch es bald wieder.',
      eight12:
        'Hearth auf diesem Computer antwortet gerade nicht, deshalb warten Anmeldungen, bis es wieder da ist.',
      teen: 'Hearth auf diesem Computer ist nicht erreichbar, deshalb warten neue Anmeldungen, bis es wieder antwortet.',
    },
    signupDeclined: {
      under8: 'Ein Erwachsener hat diesmal Nein gesagt. Du kannst mit ihm darüber reden.',
      eight12: 'Deine Eltern haben diesmal Nein gesagt. Du kannst noch einmal fragen oder mit ihnen reden.',
      teen: 'Deine Eltern haben die Anfrage abgelehnt. Du kannst noch einmal fragen, wenn sich etwas geändert hat.',
    },
  },
};
